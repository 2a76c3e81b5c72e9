//! The picture of Space: the graph drawn as an SVG document, vertices at
//! their coordinates with their owners and the players standing on them, and
//! a plain-text alternative saying the same. Pure and deterministic: the same
//! state gives the same bytes (vertices and players in the state's order,
//! integer geometry only), so a replayed record is byte-identical.

use std::fmt::Write;

use crate::engine::game::xml_text as escape;

use super::engine::State;
use super::graph::{Coords, Owner};

/// Pixels between neighbouring integer coordinates.
const STEP: i64 = 80;
/// Room around the drawing for the labels.
const MARGIN: i64 = 60;
const RADIUS: i64 = 14;

/// Who owns a vertex, by name: "god" or the player's (untrusted) name.
fn owner_name(state: &State, owner: Owner) -> String {
    match owner {
        Owner::God => "god".to_string(),
        Owner::Entity(id) => state
            .players
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.name.clone())
            .unwrap_or_else(|| format!("player {id}")),
    }
}

/// The players standing on `at`, by name, in the state's order.
fn standing(state: &State, at: Coords) -> Vec<&str> {
    state
        .players
        .iter()
        .filter(|p| p.playing && p.location == Some(at))
        .map(|p| p.name.as_str())
        .collect()
}

/// The text alternative: one line per vertex, with its owner and who stands
/// there, then the edges.
pub fn text(state: &State) -> String {
    let mut out = String::new();
    let graph = &state.space;
    let _ = writeln!(
        out,
        "Space: {} vertices, {} edges.",
        graph.vertices.len(),
        graph.edges.len()
    );
    for v in &graph.vertices {
        let (x, y) = v.at;
        let _ = write!(out, "({x}, {y}) owned by {}", owner_name(state, v.owner));
        let here = standing(state, v.at);
        if !here.is_empty() {
            let _ = write!(out, "; here: {}", here.join(", "));
        }
        out.push('\n');
    }
    for ((ax, ay), (bx, by)) in &graph.edges {
        let _ = writeln!(out, "edge ({ax}, {ay}) - ({bx}, {by})");
    }
    out
}

/// The SVG document. The y axis points up, as in the rule's coordinates.
pub fn svg(state: &State) -> String {
    let graph = &state.space;
    let xs = graph.vertices.iter().map(|v| v.at.0);
    let ys = graph.vertices.iter().map(|v| v.at.1);
    let (min_x, max_x) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
    let (min_y, max_y) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
    let width = (max_x.saturating_sub(min_x)).saturating_mul(STEP) + 2 * MARGIN;
    let height = (max_y.saturating_sub(min_y)).saturating_mul(STEP) + 2 * MARGIN;
    let place = |(x, y): Coords| {
        (
            (x - min_x).saturating_mul(STEP) + MARGIN,
            (max_y - y).saturating_mul(STEP) + MARGIN,
        )
    };
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    out.push_str("<title>Space</title>\n");
    let _ = writeln!(out, "<desc>{}</desc>", escape(&text(state)));
    out.push_str("<g stroke=\"#444\" stroke-width=\"2\">\n");
    for (a, b) in &graph.edges {
        let ((x1, y1), (x2, y2)) = (place(*a), place(*b));
        let _ = writeln!(
            out,
            "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\"/>"
        );
    }
    out.push_str("</g>\n");
    for v in &graph.vertices {
        let (cx, cy) = place(v.at);
        let (x, y) = v.at;
        let owner = escape(&owner_name(state, v.owner));
        let fill = if v.owner == Owner::God {
            "#fff"
        } else {
            "#cde"
        };
        let _ = writeln!(out, "<g class=\"vertex\" data-x=\"{x}\" data-y=\"{y}\">");
        let _ = writeln!(
            out,
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{RADIUS}\" fill=\"{fill}\" stroke=\"#000\"/>"
        );
        let _ = writeln!(
            out,
            "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">({x}, {y}) {owner}</text>",
            cy - RADIUS - 4
        );
        let here = standing(state, v.at);
        if !here.is_empty() {
            let names: Vec<String> = here.iter().map(|n| escape(n)).collect();
            let _ = writeln!(
                out,
                "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>",
                cy + RADIUS + 14,
                names.join(", ")
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::space::engine::{Money, Player};
    use crate::games::space::graph::Graph;

    fn player(id: u32, name: &str, at: Option<Coords>) -> Player {
        Player {
            id,
            address: format!("p{id}@example.org"),
            name: name.to_string(),
            money: Money::whole(0),
            location: at,
            active: true,
            paused: false,
            playing: true,
            point: 0,
            mirror: false,
            last_acted: None,
            inactive_since: None,
            removal_at: None,
        }
    }

    fn space() -> State {
        let mut graph = Graph::new(
            &[(0, 0), (1, 0), (0, -2)],
            &[((0, 0), (1, 0)), ((0, 0), (0, -2))],
        );
        graph.set_owner((1, 0), Owner::Entity(1));
        State {
            players: vec![
                player(0, "Alice", Some((0, 0))),
                player(1, "<b>Bob & \"Co\"</b>", Some((1, 0))),
            ],
            space: graph,
            ..State::default()
        }
    }

    /// A minimal well-formedness check: tags balance, every `&` starts a
    /// known entity, no raw `<` inside text or `"` inside an attribute.
    fn well_formed(doc: &str) -> bool {
        let body = doc.split_once("?>").map(|(_, b)| b).unwrap_or(doc);
        let mut stack: Vec<String> = Vec::new();
        let mut rest = body;
        while let Some(open) = rest.find('<') {
            let text = &rest[..open];
            if !entities_ok(text) || text.contains('>') {
                return false;
            }
            let Some(close) = rest[open..].find('>') else {
                return false;
            };
            let tag = &rest[open + 1..open + close];
            if tag.contains('<') || !entities_ok(tag) || !tag.matches('"').count().is_multiple_of(2)
            {
                return false;
            }
            let name: String = tag
                .trim_start_matches('/')
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect();
            if tag.starts_with('/') {
                if stack.pop().as_deref() != Some(name.as_str()) {
                    return false;
                }
            } else if !tag.ends_with('/') {
                stack.push(name);
            }
            rest = &rest[open + close + 1..];
        }
        stack.is_empty() && rest.trim().is_empty()
    }

    fn entities_ok(text: &str) -> bool {
        text.match_indices('&').all(|(i, _)| {
            ["&lt;", "&gt;", "&amp;", "&quot;", "&apos;"]
                .iter()
                .any(|e| text[i..].starts_with(e))
        })
    }

    #[test]
    fn the_picture_is_well_formed_and_escapes_player_names() {
        let doc = svg(&space());
        assert!(well_formed(&doc), "{doc}");
        assert!(doc.contains("&lt;b&gt;Bob &amp; &quot;Co&quot;&lt;/b&gt;"));
        assert!(!doc.contains("<b>"));
    }

    #[test]
    fn the_picture_shows_every_vertex_owner_and_player() {
        let doc = svg(&space());
        assert_eq!(doc.matches("<circle").count(), 3);
        assert_eq!(doc.matches("<line").count(), 2);
        for label in ["(0, 0) god", "(0, -2) god", "Alice"] {
            assert!(doc.contains(label), "{label} missing in {doc}");
        }
        assert!(doc.contains("<title>Space</title>"));
    }

    #[test]
    fn the_picture_is_the_same_bytes_for_the_same_state() {
        assert_eq!(svg(&space()), svg(&space().clone()));
    }

    #[test]
    fn the_text_alternative_lists_vertices_owners_and_who_stands_where() {
        let text = text(&space());
        assert_eq!(
            text,
            "Space: 3 vertices, 2 edges.\n\
             (0, 0) owned by god; here: Alice\n\
             (1, 0) owned by <b>Bob & \"Co\"</b>; here: <b>Bob & \"Co\"</b>\n\
             (0, -2) owned by god\n\
             edge (0, 0) - (1, 0)\n\
             edge (0, -2) - (0, 0)\n"
        );
    }

    #[test]
    fn control_characters_in_names_do_not_reach_the_picture() {
        let mut state = space();
        state.players[0].name = "Al\u{1}ice\n".to_string();
        let doc = svg(&state);
        assert!(!doc.contains('\u{1}'));
        assert!(well_formed(&doc));
    }
}
