//! The fuzz targets (`nomicbot::fuzzing`, which cargo-fuzz runs for hours from
//! `fuzz/`) on stable, in seconds: each over its seeds (what the samples send,
//! and the messages of `../shared/corpus`) and then over inputs mutated from
//! them with the tokens of `fuzz/nomic.dict`, or random bytes. The seed of the
//! random generator is fixed: every run tries the same inputs.

use std::sync::OnceLock;

use nomicbot::fuzzing::{self, Pipeline, Samples};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::support::repo_root;

/// The longest corpus file used as a seed: larger ones take seconds in a debug
/// build, and `tests/it/corpus.rs` takes all of them in already.
const MAX_SEED_BYTES: usize = 64 * 1024;

fn samples() -> &'static Samples {
    static SAMPLES: OnceLock<Samples> = OnceLock::new();
    SAMPLES.get_or_init(Samples::play)
}

/// A target's seeds whose names `keep` keeps, as the fuzz crate's `seeds` writes
/// them for cargo-fuzz.
fn seeds(target: &str, keep: impl Fn(&str) -> bool) -> Vec<Vec<u8>> {
    static SEEDS: OnceLock<Vec<(&'static str, String, Vec<u8>)>> = OnceLock::new();
    let all = SEEDS.get_or_init(|| {
        let corpus = repo_root().join("../shared/corpus");
        fuzzing::seeds(samples(), Some(&corpus), MAX_SEED_BYTES)
    });
    let seeds: Vec<Vec<u8>> = all
        .iter()
        .filter(|(of, name, _)| *of == target && keep(name))
        .map(|(_, _, bytes)| bytes.clone())
        .collect();
    assert!(!seeds.is_empty(), "no seeds for {target}");
    seeds
}

/// The tokens of the fuzzers' dictionary, `fuzz/nomic.dict` (libFuzzer's format:
/// one quoted string a line, `\"`, `\\` and `\xNN` escaped, `#` comments).
fn dictionary() -> &'static [Vec<u8>] {
    static TOKENS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    TOKENS.get_or_init(|| {
        let path = repo_root().join("fuzz/nomic.dict");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let tokens: Vec<Vec<u8>> = text
            .lines()
            .filter_map(|line| line.trim().strip_prefix('"')?.strip_suffix('"'))
            .map(unescape)
            .collect();
        assert!(
            tokens.len() > 50,
            "{} tokens in {}",
            tokens.len(),
            path.display()
        );
        tokens
    })
}

fn unescape(quoted: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut rest = quoted.as_bytes();
    while let Some((&byte, after)) = rest.split_first() {
        rest = after;
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        match rest {
            [b'x', high, low, after @ ..] => {
                let hex = std::str::from_utf8(&[*high, *low])
                    .ok()
                    .and_then(|hex| u8::from_str_radix(hex, 16).ok());
                bytes.push(hex.unwrap_or_else(|| panic!("bad escape in {quoted:?}")));
                rest = after;
            }
            [escaped, after @ ..] => {
                bytes.push(*escaped);
                rest = after;
            }
            [] => panic!("a lone backslash ends {quoted:?}"),
        }
    }
    bytes
}

/// A change to a seed, as libFuzzer's mutators make them.
#[derive(Debug, Clone)]
enum Mutation {
    /// One byte changed (xor).
    Flip(Index, u8),
    /// A token of the dictionary inserted.
    Insert(Index, Index),
    /// Up to 64 bytes removed.
    Remove(Index, u8),
    /// Up to 64 bytes written twice.
    Repeat(Index, u8),
    /// The seed cut, and the end of another seed put after it.
    Splice(Index, Index, Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), 1..=u8::MAX).prop_map(|(at, xor)| Mutation::Flip(at, xor)),
        (any::<Index>(), any::<Index>()).prop_map(|(at, token)| Mutation::Insert(at, token)),
        (any::<Index>(), 1..64_u8).prop_map(|(at, n)| Mutation::Remove(at, n)),
        (any::<Index>(), 1..64_u8).prop_map(|(at, n)| Mutation::Repeat(at, n)),
        (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(at, other, from)| Mutation::Splice(at, other, from)),
    ]
}

fn mutate(seed: &[u8], mutations: &[Mutation], seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for mutation in mutations {
        let at = |index: &Index| index.index(bytes.len() + 1);
        match mutation {
            Mutation::Flip(index, xor) if !bytes.is_empty() => {
                let at = index.index(bytes.len());
                bytes[at] ^= xor;
            }
            Mutation::Flip(..) => {}
            Mutation::Insert(index, token) => {
                let at = at(index);
                let tokens = dictionary();
                let token = &tokens[token.index(tokens.len())];
                bytes.splice(at..at, token.iter().copied());
            }
            Mutation::Remove(index, n) => {
                let at = at(index);
                let end = (at + usize::from(*n)).min(bytes.len());
                bytes.drain(at..end);
            }
            Mutation::Repeat(index, n) => {
                let at = at(index);
                let end = (at + usize::from(*n)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
            Mutation::Splice(index, other, from) => {
                let at = at(index);
                let other = &seeds[other.index(seeds.len())];
                let from = from.index(other.len() + 1);
                bytes.truncate(at);
                bytes.extend_from_slice(&other[from..]);
            }
        }
    }
    bytes
}

/// An input, shown as text with its odd bytes escaped when a property fails.
#[derive(Clone)]
struct Input(Vec<u8>);

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

/// Runs `target` over its seeds, then over `cases` inputs: mostly seeds mutated,
/// some random bytes.
fn smoke(target: &str, seeds: Vec<Vec<u8>>, cases: u32, run: impl Fn(&[u8])) {
    for seed in &seeds {
        run(seed);
    }
    let inputs = prop_oneof![
        4 => (any::<Index>(), prop::collection::vec(mutation(), 1..6)).prop_map({
            let seeds = seeds.clone();
            move |(seed, mutations)| {
                Input(mutate(&seeds[seed.index(seeds.len())], &mutations, &seeds))
            }
        }),
        1 => prop::collection::vec(any::<u8>(), 0..256).prop_map(Input),
    ];
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
    if let Err(error) = runner.run(&inputs, |input| {
        run(&input.0);
        Ok(())
    }) {
        panic!("fuzz target {target}: {error}");
    }
}

fn every(_: &str) -> bool {
    true
}

#[test]
fn intake_target_holds_on_seeds_and_mutations() {
    smoke("intake", seeds("intake", every), 2_000, fuzzing::intake);
}

#[test]
fn subject_target_holds_on_seeds_and_mutations() {
    smoke("subject", seeds("subject", every), 5_000, fuzzing::subject);
}

#[test]
fn commands_target_holds_on_seeds_and_mutations() {
    smoke(
        "commands",
        seeds("commands", every),
        3_000,
        fuzzing::commands,
    );
}

#[test]
fn route_target_holds_on_seeds_and_mutations() {
    smoke("route", seeds("route", every), 2_000, |bytes| {
        samples().route(bytes)
    });
}

/// The slowest target (a database per message): the samples' messages only,
/// since `corpus.rs` takes every corpus message through the same pipeline.
#[test]
fn message_target_holds_on_seeds_and_mutations() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pipeline = Pipeline::prepare(dir.path()).expect("the demos play");
    let seeds = seeds("message", |name| name.starts_with("sample-"));
    smoke("message", seeds, 100, |bytes| pipeline.message(bytes));
}
