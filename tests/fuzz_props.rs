//! Property tests over every decoder that takes remote bytes: each fuzz target (`testing::fuzz::TARGETS`)
//! runs on proptest's default 256 structured inputs (hostile strings, markdown, JSON trees with A2A keys,
//! mutated real cards and recorded streams), on every seed in `tests/fuzz_corpus/`, and on every input the
//! long-running fuzzer ever caught (`tests/fuzz_corpus/regressions/<target>/`). A failure is shrunk by
//! proptest and printed with the invariant it broke.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fuzzing;

use std::panic::{AssertUnwindSafe, catch_unwind};

use a2a_console::testing::fuzz::{TARGETS, Target};
use proptest::test_runner::{Config, TestCaseError, TestRunner};

fn run_one(t: &Target, input: &[u8]) -> Result<(), String> {
    match catch_unwind(AssertUnwindSafe(|| (t.run)(input))) {
        Ok(r) => r,
        Err(p) => Err(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )),
    }
}

fn property(t: &Target) {
    // A fixed seed per target keeps CI runs repeatable; `PROPTEST_CASES` still raises the count locally.
    let config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        proptest::test_runner::TestRng::from_seed(
            proptest::test_runner::RngAlgorithm::ChaCha,
            &seed_for(t.name),
        ),
    );
    let result = runner.run(&fuzzing::input(t.input), |input| {
        run_one(t, &input).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("fuzz target {:?}: {e}", t.name);
    }
}

fn seed_for(name: &str) -> [u8; 32] {
    let mut seed = [7u8; 32];
    for (i, b) in name.bytes().enumerate() {
        seed[i % 32] ^= b;
    }
    seed
}

#[test]
fn sanitize_holds_for_generated_inputs() {
    property(a2a_console::testing::fuzz::target("sanitize").unwrap());
}

#[test]
fn markdown_holds_for_generated_inputs() {
    property(a2a_console::testing::fuzz::target("markdown").unwrap());
}

#[test]
fn json_view_holds_for_generated_inputs() {
    property(a2a_console::testing::fuzz::target("json_view").unwrap());
}

#[test]
fn safe_json_holds_for_generated_inputs() {
    property(a2a_console::testing::fuzz::target("safe_json").unwrap());
}

#[test]
fn card_holds_for_generated_inputs() {
    property(a2a_console::testing::fuzz::target("card").unwrap());
}

#[test]
fn v03_holds_for_generated_inputs() {
    property(a2a_console::testing::fuzz::target("v03").unwrap());
}

/// A target added to the table without its own test above still gets its property run here.
#[test]
fn every_other_target_holds_for_generated_inputs() {
    const NAMED: &[&str] = &[
        "sanitize",
        "markdown",
        "json_view",
        "safe_json",
        "card",
        "v03",
    ];
    for t in TARGETS.iter().filter(|t| !NAMED.contains(&t.name)) {
        property(t);
    }
}

#[test]
fn every_seed_and_every_past_failure_holds() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for t in TARGETS {
        let mut inputs = fuzzing::seeds(t.input);
        let regressions = format!("regressions/{}", t.name);
        inputs.extend(
            fuzzing::corpus_files(&regressions)
                .into_iter()
                .map(|(_, b)| b),
        );
        for input in inputs {
            ran += 1;
            if let Err(e) = run_one(t, &input) {
                failures.push(format!(
                    "{}: {e}\n  input: {:?}",
                    t.name,
                    String::from_utf8_lossy(&input)
                ));
            }
        }
    }
    assert!(ran > 20, "the corpus is missing: only {ran} inputs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
