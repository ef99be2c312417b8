//! The README's first lines are what a new user runs (issue [10] item 17): the console's command is the
//! release build, the text right after says that the first run is a cold build that takes minutes, and the
//! test command is exactly what CI runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

fn first_block(readme: &str) -> Vec<&str> {
    let start = readme.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let len = readme[start..].find("```").expect("the block ends");
    readme[start..start + len].lines().collect()
}

#[test]
fn the_first_command_is_the_release_build_and_the_cold_build_is_announced() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let block = first_block(&readme);
    assert!(
        block[0].starts_with("cargo run --release -- --demo"),
        "the first command: {:?}",
        block[0]
    );
    let after = &readme[readme.find(block[1]).unwrap()..];
    let paragraph = &after[..after.find("\n\n![").unwrap_or(after.len())];
    assert!(
        paragraph.contains("cold build") && paragraph.contains("minutes"),
        "the text under the commands says what the first run costs: {paragraph}"
    );
    let test_command = block[1].split('#').next().unwrap().trim();
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == test_command),
        ".ci/run runs the README's test command {test_command:?}"
    );
}
