//! The official dictionary's index on the shipped list, `dict/english.txt`: how long
//! it takes to build, and how long one "is this inside any word" query takes through
//! the index and by a plain scan of the list, measured in the same run. The aim is a
//! median under 10 µs a query through the index.
//!
//! Run: `cargo bench --bench dictionary` (`BENCH_QUERIES=N` to change the number of
//! index queries, default 10 000; the scans take a sample of 200 of them). Prints
//! figures; exits non-zero only if the index and the scan disagree on the sample.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use nomicbot::engine::dictionary::{Dictionary, Lexicon};

const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/dict/english.txt");
const BUILDS: usize = 5;
const SCAN_SAMPLE: usize = 200;
const AIM: Duration = Duration::from_micros(10);

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("dictionary bench: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `Ok(false)` when the index and the scan disagree.
fn run() -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(SHIPPED)
        .map_err(|error| anyhow::anyhow!("cannot read {SHIPPED}: {error}"))?;
    let queries = match std::env::var("BENCH_QUERIES") {
        Ok(value) => value
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| anyhow::anyhow!("BENCH_QUERIES is not a positive number: {value:?}"))?,
        Err(_) => 10_000,
    };

    let mut build_times = Vec::with_capacity(BUILDS);
    let mut dictionary = None;
    for _ in 0..BUILDS {
        let started = Instant::now();
        let built = Dictionary::from_text(black_box(&text))?;
        build_times.push(started.elapsed());
        dictionary = Some(built);
    }
    let dictionary = dictionary.ok_or_else(|| anyhow::anyhow!("no build ran"))?;
    let build = Summary::of(build_times);
    println!(
        "words: {} ({} lines skipped), index {:.1} MB",
        dictionary.len(),
        dictionary.skipped(),
        dictionary.index_bytes() as f64 / 1e6
    );
    println!(
        "index build: {} (median of {BUILDS}, max {})",
        millis(build.median),
        millis(build.max)
    );

    let words: Vec<&str> = dictionary.words().filter(|word| word.len() >= 2).collect();
    // The project's own repeatable draws: the same fragments every run.
    let mut random = nomicbot::engine::random::Stream::new("dictionary benchmark fragments");
    let fragments: Vec<String> = (0..queries)
        .map(|round| {
            if round % 2 == 0 {
                // A piece of a real word, so it is inside.
                let word = words[random.below(words.len())];
                let length = 2 + random.below(word.len().min(8) - 1);
                let start = random.below(word.len() - length + 1);
                word[start..start + length].to_owned()
            } else {
                let length = 2 + random.below(7);
                (0..length)
                    .map(|_| char::from(b'a' + random.below(26) as u8))
                    .collect()
            }
        })
        .collect();

    let (index_times, index_answers) = time_each(&fragments, |f| dictionary.is_inside_a_word(f));
    let inside = index_answers.iter().filter(|&&answer| answer).count();
    let index = Summary::of(index_times);
    println!(
        "fragments: {queries} of 2-8 letters, half from words; {inside} inside a word, {} not",
        queries - inside
    );
    println!(
        "inside-any-word via index: median {}, p90 {}, max {}",
        micros(index.median),
        micros(index.p90),
        micros(index.max)
    );

    // Every k-th fragment, so the sample keeps the half-and-half mix.
    let step = (queries / SCAN_SAMPLE).max(1);
    let sample: Vec<String> = fragments
        .iter()
        .step_by(step)
        .take(SCAN_SAMPLE)
        .cloned()
        .collect();
    let (scan_times, scan_answers) = time_each(&sample, |f| dictionary.scan_inside(f));
    let scan = Summary::of(scan_times);
    println!(
        "inside-any-word via scan ({} fragments): median {}, p90 {}, max {}",
        sample.len(),
        micros(scan.median),
        micros(scan.p90),
        micros(scan.max)
    );
    println!(
        "speed-up: {:.0}x (median scan / median index)",
        scan.median.as_secs_f64() / index.median.as_secs_f64().max(1e-12)
    );
    println!(
        "aim (median under {}): {}",
        micros(AIM),
        if index.median < AIM { "met" } else { "NOT met" }
    );

    let (word_times, _) = time_each(&fragments, |f| dictionary.is_word(f));
    let is_word = Summary::of(word_times);
    println!(
        "is-word via index: median {}, p90 {}",
        micros(is_word.median),
        micros(is_word.p90)
    );

    let mut agree = true;
    for (number, fragment) in sample.iter().enumerate() {
        let by_index = index_answers[number * step];
        if by_index != scan_answers[number] {
            eprintln!(
                "disagreement on {fragment:?}: index says {by_index}, scan says {}",
                scan_answers[number]
            );
            agree = false;
        }
    }
    println!(
        "index and scan agree on the sample: {}",
        if agree { "yes" } else { "NO" }
    );
    Ok(agree)
}

/// Times `query` on each fragment separately; returns the times and the answers.
fn time_each(fragments: &[String], query: impl Fn(&str) -> bool) -> (Vec<Duration>, Vec<bool>) {
    let mut times = Vec::with_capacity(fragments.len());
    let mut answers = Vec::with_capacity(fragments.len());
    for fragment in fragments {
        let started = Instant::now();
        let answer = black_box(query(black_box(fragment)));
        times.push(started.elapsed());
        answers.push(answer);
    }
    (times, answers)
}

struct Summary {
    median: Duration,
    p90: Duration,
    max: Duration,
}

impl Summary {
    fn of(mut times: Vec<Duration>) -> Summary {
        times.sort_unstable();
        let at = |fraction: f64| {
            let index = (times.len().saturating_sub(1) as f64 * fraction).round() as usize;
            times.get(index).copied().unwrap_or_default()
        };
        Summary {
            median: at(0.5),
            p90: at(0.9),
            max: at(1.0),
        }
    }
}

fn micros(duration: Duration) -> String {
    format!("{:.2} µs", duration.as_secs_f64() * 1e6)
}

fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1e3)
}
