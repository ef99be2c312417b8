//! Tests for the JSON view: layout, folding, escaping, deep and random documents.

use serde_json::json;

use super::*;

fn st() -> RenderStyles {
    crate::markup::styles::render_styles(&crate::config::theme::Theme::builtin("dark").unwrap())
}

fn texts(v: &JsonView) -> Vec<String> {
    v.lines(&st())
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

fn sample() -> JsonView {
    JsonView::new(json!({
        "a": 1,
        "b": [true, null, {"c": "x"}],
        "d": {},
        "e": [],
        "f": {"g": -2.5}
    }))
}

#[test]
fn pretty_prints_in_key_order() {
    let v = sample();
    let want = [
        "{",
        "  \"a\": 1,",
        "  \"b\": [",
        "    true,",
        "    null,",
        "    {",
        "      \"c\": \"x\"",
        "    }",
        "  ],",
        "  \"d\": {},",
        "  \"e\": [],",
        "  \"f\": {",
        "    \"g\": -2.5",
        "  }",
        "}",
    ];
    assert_eq!(texts(&v), want);
    assert_eq!(v.line_count(), want.len());
    // The pretty form is still JSON, and the same JSON.
    let back: Value = serde_json::from_str(&texts(&v).join("\n")).unwrap();
    assert_eq!(&back, v.value());
}

#[test]
fn styles_follow_token_types() {
    let s = st();
    let lines = sample().lines(&s);
    let style = |line: usize, needle: &str| {
        lines[line]
            .spans
            .iter()
            .find(|sp| sp.content.contains(needle))
            .map(|sp| sp.style)
    };
    assert_eq!(style(1, "\"a\""), Some(s.json_key));
    assert_eq!(style(1, "1"), Some(s.json_number));
    assert_eq!(style(3, "true"), Some(s.json_bool_null));
    assert_eq!(style(6, "\"x\""), Some(s.json_string));
    assert_eq!(style(2, "["), Some(s.json_punct));
}

#[test]
fn fold_and_unfold() {
    let mut v = sample();
    let full = v.line_count();
    // Line 2 opens "b".
    assert!(v.toggle_fold_at_line(2));
    assert_eq!(texts(&v)[2], "  \"b\": [ … 3 items ],");
    assert_eq!(v.line_count(), full - 6);
    assert_eq!(v.line_count(), v.lines(&st()).len());
    // Unfold from the folded line itself.
    assert!(v.toggle_fold_at_line(2));
    assert_eq!(v.line_count(), full);
    // Fold from a closing line ("f"'s `}`), singular noun.
    assert!(v.toggle_fold_at_line(13));
    assert_eq!(texts(&v)[11], "  \"f\": { … 1 key }");
    // Scalars, empty containers and out-of-range lines do not fold.
    assert!(!v.toggle_fold_at_line(1));
    assert!(!v.toggle_fold_at_line(9));
    assert!(!v.toggle_fold_at_line(10_000));
}

#[test]
fn inner_folds_survive_outer_folds() {
    let mut v = sample();
    assert!(v.toggle_fold_at_line(5)); // the object inside "b"
    assert_eq!(texts(&v)[5], "    { … 1 key }");
    assert!(v.toggle_fold_at_line(2)); // "b"
    assert!(v.toggle_fold_at_line(2));
    assert_eq!(texts(&v)[5], "    { … 1 key }");
    // Later containers keep their identity while earlier ones are folded.
    assert!(v.toggle_fold_at_line(2));
    let f_line = texts(&v).iter().position(|t| t.contains("\"f\"")).unwrap();
    assert!(v.toggle_fold_at_line(f_line));
    assert_eq!(texts(&v)[f_line], "  \"f\": { … 1 key }");
}

#[test]
fn fold_all_by_depth() {
    let mut v = sample();
    v.fold_all(0);
    assert_eq!(texts(&v), ["{ … 5 keys }"]);
    assert!(v.toggle_fold_at_line(0));
    assert_eq!(
        texts(&v),
        [
            "{",
            "  \"a\": 1,",
            "  \"b\": [ … 3 items ],",
            "  \"d\": {},",
            "  \"e\": [],",
            "  \"f\": { … 1 key }",
            "}"
        ]
    );
    // Unfolding a member reveals one level, not the whole subtree.
    assert!(v.toggle_fold_at_line(2));
    assert_eq!(texts(&v)[5], "    { … 1 key }");
    v.fold_all(1);
    assert_eq!(v.line_count(), 7);
    v.unfold_all();
    assert_eq!(v.line_count(), 15);
    v.fold_all(usize::MAX);
    assert_eq!(v.line_count(), 15);
}

#[test]
fn scalar_root_and_empty_root() {
    assert_eq!(texts(&JsonView::new(json!("hi"))), ["\"hi\""]);
    assert_eq!(texts(&JsonView::new(json!({}))), ["{}"]);
    let mut v = JsonView::new(json!([1]));
    assert!(v.toggle_fold_at_line(0));
    assert_eq!(texts(&v), ["[ … 1 item ]"]);
}

#[test]
fn strings_are_escaped_including_invisible_and_terminal_active_characters() {
    let v = JsonView::new(
        json!({"k\"ey\n": "a\"b\\c\u{1b}[31m\u{9b}\u{202e}\u{200b}\u{e0041}\u{7f}\t é"}),
    );
    let t = texts(&v);
    assert_eq!(
        t[1],
        r#"  "k\"ey\n": "a\"b\\c\u001b[31m\u009b\u202e\u200b\udb40\udc41\u007f\t é""#
    );
    let back: Value = serde_json::from_str(&t.join("\n")).unwrap();
    assert_eq!(&back, v.value());
    assert!(!t.iter().any(|l| l.chars().any(char::is_control)));
}

/// Found by fuzzing (`fuzz json_view`): combining marks went through unescaped however many stacked on
/// one character, so a "Zalgo" value smeared over the lines around it. Past the sanitiser's bound the rest
/// of the stack is escaped: still valid JSON, still the same value.
#[test]
fn combining_floods_are_escaped_past_the_sanitiser_bound() {
    let flood = format!("Z{}", "\u{301}".repeat(40));
    let v = JsonView::new(json!({ "k": flood }));
    let t = texts(&v);
    let shown = format!("Z{}{}", "\u{301}".repeat(8), "\\u0301".repeat(32));
    assert_eq!(t[1], format!("  \"k\": \"{shown}\""));
    let back: Value = serde_json::from_str(&t.join("\n")).unwrap();
    assert_eq!(&back, v.value());
    // Real text (Vietnamese, two marks) is untouched.
    assert_eq!(
        escape_string("Vie\u{302}\u{323}t"),
        "\"Vie\u{302}\u{323}t\""
    );
}

/// Ten thousand levels: built, shown, folded and dropped without recursion.
#[test]
fn ten_thousand_levels_do_not_overflow() {
    const DEPTH: usize = 10_000;
    let mut value = json!("leaf");
    for i in 0..DEPTH {
        value = if i % 2 == 0 {
            Value::Array(vec![value])
        } else {
            let mut m = serde_json::Map::new();
            m.insert("k".into(), value);
            Value::Object(m)
        };
    }
    // A small stack proves the point independently of the test harness's stack size.
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut v = JsonView::new(value);
            assert_eq!(v.line_count(), 2 * DEPTH + 1);
            let lines = v.lines(&st());
            assert_eq!(lines.len(), 2 * DEPTH + 1);
            // Indentation stops growing; the depth is written instead.
            let deepest: String = lines[DEPTH]
                .spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect();
            assert_eq!(
                deepest,
                format!("{}↳{DEPTH} \"leaf\"", "  ".repeat(MAX_INDENT_LEVELS))
            );
            assert!(lines.iter().all(|l| l.width() < 120));
            v.fold_all(5);
            assert_eq!(v.line_count(), 11);
            assert!(v.toggle_fold_at_line(5));
            assert_eq!(v.line_count(), 13);
            drop(v);
        })
        .unwrap();
    handle.join().unwrap();
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_value(rng: &mut XorShift, depth: usize) -> Value {
    let leaf = depth > 5 || rng.below(3) == 0;
    match (leaf, rng.below(6)) {
        (true, 0) => Value::Null,
        (true, 1) => json!(rng.below(2) == 0),
        (true, 2) => json!(rng.next() as i64),
        // Eighths: serde_json (without `float_roundtrip`) reads these back exactly.
        (true, 3) => json!(rng.below(1000) as f64 / 8.0),
        (true, _) => {
            let chars: Vec<char> = "a\"\\\n\u{1b}\u{200b}é👍 ".chars().collect();
            Value::String(
                (0..rng.below(8))
                    .map(|_| chars[rng.below(chars.len())])
                    .collect(),
            )
        }
        (false, k) if k % 2 == 0 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        (false, _) => {
            let mut m = serde_json::Map::new();
            for i in 0..rng.below(4) {
                m.insert(format!("k{i}"), random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
    }
}

#[test]
fn fuzz_fold_counts_stay_consistent() {
    let mut rng = XorShift(0xdead_beef_cafe_f00d);
    for _ in 0..500 {
        let value = random_value(&mut rng, 0);
        let mut v = JsonView::new(value.clone());
        let back: Value = serde_json::from_str(&texts(&v).join("\n")).unwrap();
        assert_eq!(back, value);
        for _ in 0..10 {
            let line = rng.below(v.line_count() + 2);
            v.toggle_fold_at_line(line);
            assert_eq!(v.line_count(), v.lines(&st()).len());
        }
        v.unfold_all();
        let back: Value = serde_json::from_str(&texts(&v).join("\n")).unwrap();
        assert_eq!(back, value);
    }
}
