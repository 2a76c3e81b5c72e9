//! Space changes: the moves that change the graph Space, each made by a player
//! from the vertex ey is at, and their evaluation "if there is an unambiguous
//! way to execute all moves of this type". Pure.

use serde::{Deserialize, Serialize};

use super::graph::{Coords, Graph, Owner, Vertex, show};

/// "Valid space changes to be made by a player whose location is vertex X are
/// restricted to the following".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SpaceChange {
    /// "remove the edge {X, Y}, provided that Space stays connected".
    RemoveEdge { y: Coords },
    /// "add an edge {Y, Z}, provided that such an edge does not already exist".
    AddEdge { y: Coords, z: Coords },
    /// "add a new vertex A and edges {A, Y} and {A, Z}".
    AddVertex { a: Coords, y: Coords, z: Coords },
}

impl std::fmt::Display for SpaceChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpaceChange::RemoveEdge { y } => write!(f, "remove the edge to {}", show(*y)),
            SpaceChange::AddEdge { y, z } => {
                write!(f, "add the edge {}-{}", show(*y), show(*z))
            }
            SpaceChange::AddVertex { a, y, z } => write!(
                f,
                "add the vertex {} joined to {} and {}",
                show(*a),
                show(*y),
                show(*z)
            ),
        }
    }
}

/// "Two vertices of Space are considered coordinatewise adjacent if both the
/// absolute value of the difference between their x-coordinates and [...]
/// y-coordinates are at most 1." (A vertex is so adjacent to itself.)
pub fn coordinatewise_adjacent(a: Coords, b: Coords) -> bool {
    a.0.abs_diff(b.0) <= 1 && a.1.abs_diff(b.1) <= 1
}

/// Whether every vertex of `graph` is reached from any one.
pub fn connected(graph: &Graph) -> bool {
    match graph.vertices.first() {
        None => true,
        Some(first) => graph.distances(first.at).len() == graph.vertices.len(),
    }
}

/// Carries out `change` by a player at `x` (`None`: nowhere) on `graph`, or
/// says why it is not valid there.
pub fn apply(graph: &mut Graph, x: Option<Coords>, change: &SpaceChange) -> Result<(), String> {
    // "Any space change by a player whose location is nowhere is invalid."
    let x = x.ok_or_else(|| "the player is nowhere".to_owned())?;
    let exists = |graph: &Graph, v: Coords| graph.vertex(v).is_some();
    match change {
        SpaceChange::RemoveEdge { y } => {
            if !graph.adjacent(x, *y) {
                return Err(format!(
                    "{} is not graphwise adjacent to {}",
                    show(*y),
                    show(x)
                ));
            }
            let mut after = graph.clone();
            after
                .edges
                .retain(|(a, b)| !((*a, *b) == (x, *y) || (*a, *b) == (*y, x)));
            if !connected(&after) {
                return Err(format!(
                    "removing the edge {}-{} would disconnect Space",
                    show(x),
                    show(*y)
                ));
            }
            *graph = after;
        }
        SpaceChange::AddEdge { y, z } => {
            near(graph, x, *y, *z, exists)?;
            if !coordinatewise_adjacent(*y, *z) {
                return Err(format!(
                    "{} and {} are not coordinatewise adjacent",
                    show(*y),
                    show(*z)
                ));
            }
            if graph.adjacent(*y, *z) {
                return Err(format!("the edge {}-{} already exists", show(*y), show(*z)));
            }
            graph.edges.push(if y <= z { (*y, *z) } else { (*z, *y) });
        }
        SpaceChange::AddVertex { a, y, z } => {
            near(graph, x, *y, *z, exists)?;
            if exists(graph, *a) {
                return Err(format!("a vertex is already at {}", show(*a)));
            }
            graph.vertices.push(Vertex {
                at: *a,
                owner: Owner::God,
            });
            for end in [y, z] {
                graph
                    .edges
                    .push(if a <= end { (*a, *end) } else { (*end, *a) });
            }
        }
    }
    Ok(())
}

/// "For distinct vertices Y and Z, both coordinatewise adjacent to X".
fn near(
    graph: &Graph,
    x: Coords,
    y: Coords,
    z: Coords,
    exists: impl Fn(&Graph, Coords) -> bool,
) -> Result<(), String> {
    for v in [y, z] {
        if !exists(graph, v) {
            return Err(format!("Space has no vertex {}", show(v)));
        }
        if !coordinatewise_adjacent(x, v) {
            return Err(format!(
                "{} is not coordinatewise adjacent to {}",
                show(v),
                show(x)
            ));
        }
    }
    if y == z {
        return Err("Y and Z must be distinct vertices".to_owned());
    }
    Ok(())
}

/// The most space changes whose every order is tried; beyond, only the order
/// they were stored in.
const MOST_ORDERS: usize = 7;

/// "if there is an unambiguous way to execute all moves of this type then this
/// occurs": every order of the changes in which all are valid is tried; they
/// are executed when at least one order is and all such orders give the same
/// Space. `moves` are (the player's location, the change), in the order phi
/// gives. On success, the Space after them and the order used.
pub fn resolve(
    graph: &Graph,
    moves: &[(Option<Coords>, SpaceChange)],
) -> Result<(Graph, Vec<usize>), String> {
    let mut orders: Vec<Vec<usize>> = Vec::new();
    if moves.len() <= MOST_ORDERS {
        permutations(&mut (0..moves.len()).collect(), 0, &mut orders);
    } else {
        orders.push((0..moves.len()).collect());
    }
    let mut found: Option<(Graph, Vec<usize>)> = None;
    let mut first_why = None;
    for order in orders {
        let mut after = graph.clone();
        let mut valid = true;
        for index in &order {
            let (x, change) = &moves[*index];
            if let Err(why) = apply(&mut after, *x, change) {
                first_why.get_or_insert(format!("{change}: {why}"));
                valid = false;
                break;
            }
        }
        if !valid {
            continue;
        }
        match &found {
            None => found = Some((after, order)),
            Some((before, _)) if !same(before, &after) => {
                return Err("the changes give different Spaces in different orders".into());
            }
            Some(_) => {}
        }
    }
    found.ok_or_else(|| first_why.unwrap_or_default())
}

fn same(a: &Graph, b: &Graph) -> bool {
    let mut a_vertices: Vec<Coords> = a.vertices.iter().map(|v| v.at).collect();
    let mut b_vertices: Vec<Coords> = b.vertices.iter().map(|v| v.at).collect();
    a_vertices.sort();
    b_vertices.sort();
    let mut a_edges = a.edges.clone();
    let mut b_edges = b.edges.clone();
    a_edges.sort();
    b_edges.sort();
    a_vertices == b_vertices && a_edges == b_edges
}

fn permutations(items: &mut Vec<usize>, from: usize, out: &mut Vec<Vec<usize>>) {
    if from >= items.len() {
        out.push(items.clone());
        return;
    }
    for i in from..items.len() {
        items.swap(from, i);
        permutations(items, from + 1, out);
        items.swap(from, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Graph {
        Graph::new(
            &[(0, 0), (1, 0), (1, 1), (0, 1)],
            &[
                ((0, 0), (1, 0)),
                ((1, 0), (1, 1)),
                ((1, 1), (0, 1)),
                ((0, 1), (0, 0)),
            ],
        )
    }

    #[test]
    fn an_edge_is_removed_only_if_space_stays_connected() {
        let mut graph = square();
        let remove = SpaceChange::RemoveEdge { y: (1, 0) };
        apply(&mut graph, Some((0, 0)), &remove).unwrap();
        let again = SpaceChange::RemoveEdge { y: (0, 1) };
        assert!(
            apply(&mut graph, Some((0, 0)), &again)
                .unwrap_err()
                .contains("disconnect")
        );
    }

    #[test]
    fn any_space_change_from_nowhere_is_invalid() {
        let mut graph = square();
        let add = SpaceChange::AddEdge {
            y: (0, 0),
            z: (1, 1),
        };
        assert!(apply(&mut graph, None, &add).is_err());
        apply(&mut graph, Some((0, 0)), &add).unwrap();
        assert!(graph.adjacent((1, 1), (0, 0)));
    }

    #[test]
    fn two_removals_each_valid_alone_but_not_together_execute_nothing() {
        // Removing (0,0)-(1,0) and (1,1)-(0,1) together cuts the square in two.
        let moves = vec![
            (Some((0, 0)), SpaceChange::RemoveEdge { y: (1, 0) }),
            (Some((1, 1)), SpaceChange::RemoveEdge { y: (0, 1) }),
        ];
        let why = resolve(&square(), &moves).unwrap_err();
        assert!(why.contains("disconnect"), "{why}");
    }

    #[test]
    fn a_change_that_needs_another_first_has_one_way_and_is_executed() {
        // Bob's edge ends at the vertex Alice adds: only one order works.
        let moves = vec![
            (
                Some((1, 1)),
                SpaceChange::AddEdge {
                    y: (1, 1),
                    z: (2, 2),
                },
            ),
            (
                Some((1, 1)),
                SpaceChange::AddVertex {
                    a: (2, 2),
                    y: (1, 0),
                    z: (0, 1),
                },
            ),
        ];
        let (graph, order) = resolve(&square(), &moves).unwrap();
        assert_eq!(order, vec![1, 0]);
        assert!(graph.adjacent((1, 1), (2, 2)));
    }
}
