//! Space, the graph of the Space Nomic: vertices at distinct integer
//! coordinates, each with an owner, and edges between them. Pure.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

/// A vertex is known by its coordinates (x, y): "Distinct vertices must have
/// distinct coordinates".
pub type Coords = (i64, i64);

/// Who owns a vertex: a player or former player by id, or "god".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Owner {
    God,
    Entity(u32),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vertex {
    pub at: Coords,
    pub owner: Owner,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    pub vertices: Vec<Vertex>,
    /// Each edge once, its ends in ascending order.
    pub edges: Vec<(Coords, Coords)>,
}

fn edge(a: Coords, b: Coords) -> (Coords, Coords) {
    if a <= b { (a, b) } else { (b, a) }
}

impl Graph {
    /// A graph of `vertices`, all owned by god, and `edges` between them; an
    /// edge naming no vertex, a loop or a repeated vertex is left out.
    pub fn new(vertices: &[Coords], edges: &[(Coords, Coords)]) -> Graph {
        let mut graph = Graph::default();
        for at in vertices {
            if graph.vertex(*at).is_none() {
                graph.vertices.push(Vertex {
                    at: *at,
                    owner: Owner::God,
                });
            }
        }
        for (a, b) in edges {
            let both = graph.vertex(*a).is_some() && graph.vertex(*b).is_some();
            if both && a != b && !graph.adjacent(*a, *b) {
                graph.edges.push(edge(*a, *b));
            }
        }
        graph
    }

    pub fn vertex(&self, at: Coords) -> Option<&Vertex> {
        self.vertices.iter().find(|v| v.at == at)
    }

    pub fn set_owner(&mut self, at: Coords, owner: Owner) {
        if let Some(v) = self.vertices.iter_mut().find(|v| v.at == at) {
            v.owner = owner;
        }
    }

    /// "Two vertices will be called graphwise adjacent when there is an edge
    /// joining them in the graph Space."
    pub fn adjacent(&self, a: Coords, b: Coords) -> bool {
        self.edges.contains(&edge(a, b))
    }

    fn neighbours(&self, at: Coords) -> impl Iterator<Item = Coords> + '_ {
        self.edges.iter().filter_map(move |(a, b)| {
            if *a == at {
                Some(*b)
            } else if *b == at {
                Some(*a)
            } else {
                None
            }
        })
    }

    /// The graphwise distance from `from` to every vertex it reaches.
    pub fn distances(&self, from: Coords) -> BTreeMap<Coords, u64> {
        let mut found = BTreeMap::new();
        if self.vertex(from).is_none() {
            return found;
        }
        found.insert(from, 0);
        let mut queue = VecDeque::from([from]);
        while let Some(at) = queue.pop_front() {
            let d = found[&at];
            for next in self.neighbours(at).collect::<Vec<_>>() {
                if let std::collections::btree_map::Entry::Vacant(entry) = found.entry(next) {
                    entry.insert(d + 1);
                    queue.push_back(next);
                }
            }
        }
        found
    }
}

/// "(1, -2)", "1,-2", "1 -2": a vertex's coordinates as written.
pub fn parse_coords(text: &str) -> Option<Coords> {
    let inner = text
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let mut parts = inner
        .split([',', ' '])
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let x = parts.next()?.parse().ok()?;
    let y = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((x, y))
}

/// Every "(x, y)" written in `text`, in order.
pub fn all_coords(text: &str) -> Vec<Coords> {
    text.split('(')
        .skip(1)
        .filter_map(|part| part.split_once(')'))
        .filter_map(|(inner, _)| parse_coords(inner))
        .collect()
}

pub fn show(at: Coords) -> String {
    format!("({}, {})", at.0, at.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphwise_distance_is_the_least_number_of_edges() {
        let graph = Graph::new(
            &[(0, 0), (1, 0), (1, 1), (5, 5)],
            &[((0, 0), (1, 0)), ((1, 0), (1, 1))],
        );
        let d = graph.distances((0, 0));
        assert_eq!(d.get(&(1, 1)), Some(&2));
        assert_eq!(d.get(&(5, 5)), None);
    }

    #[test]
    fn coordinates_read_as_written() {
        assert_eq!(parse_coords("(1, -2)"), Some((1, -2)));
        assert_eq!(parse_coords("3,4"), Some((3, 4)));
        assert_eq!(parse_coords("3"), None);
    }
}
