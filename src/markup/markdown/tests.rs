//! Tests for the markdown renderer: each construct, fences, and hostile or huge input.

use ratatui::style::Style;

use super::*;

fn st() -> RenderStyles {
    crate::markup::styles::render_styles(&crate::config::theme::Theme::builtin("dark").unwrap())
}

fn text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// All lines of all `Block::Lines`, as text.
fn texts(blocks: &[Block]) -> Vec<String> {
    blocks
        .iter()
        .flat_map(|b| match b {
            Block::Lines(ls) => ls.iter().map(text).collect::<Vec<_>>(),
            Block::Code { .. } => vec!["<code>".to_string()],
        })
        .collect()
}

fn one_line(src: &str) -> Line<'static> {
    match parse(src, &st()).as_slice() {
        [Block::Lines(ls)] if ls.len() == 1 => ls[0].clone(),
        other => panic!("expected one line, got {other:?}"),
    }
}

/// The style of the span that contains `needle`.
fn style_of(line: &Line<'_>, needle: &str) -> Style {
    line.spans
        .iter()
        .find(|s| s.content.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in {line:?}"))
        .style
}

#[test]
fn headings() {
    let s = st();
    let l = one_line("## Section *two*");
    assert_eq!(text(&l), "## Section two");
    assert_eq!(style_of(&l, "Section"), s.text.patch(s.heading));
    assert_eq!(
        style_of(&l, "two"),
        s.text.patch(s.heading).patch(s.emphasis)
    );
    assert_eq!(text(&one_line("# Title ##")), "# Title");
    assert_eq!(text(&one_line("# C#")), "# C#");
    assert_eq!(text(&one_line("###### six")), "###### six");
    // Not headings: seven hashes, no space, four spaces of indentation.
    let l = one_line("####### seven");
    assert_eq!(style_of(&l, "seven"), s.text);
    assert_eq!(style_of(&one_line("#hashtag"), "hashtag"), s.text);
    assert_eq!(style_of(&one_line("    # indented"), "indented"), s.text);
}

#[test]
fn lists_keep_indentation() {
    let s = st();
    let src = "- a\n  * b\n    + c\n1. one\n10) ten\n- [ ] todo\n- [x] done\n-5 degrees\n+1";
    let blocks = parse(src, &s);
    assert_eq!(
        texts(&blocks),
        [
            "• a",
            "  ◦ b",
            "    ▪ c",
            "1. one",
            "10) ten",
            "• ☐ todo",
            "• ☑ done",
            "-5 degrees",
            "+1"
        ]
    );
    let Block::Lines(ls) = &blocks[0] else {
        panic!()
    };
    assert_eq!(style_of(&ls[0], "•"), s.text.patch(s.list_marker));
    assert_eq!(style_of(&ls[3], "1."), s.text.patch(s.list_marker));
    assert_eq!(style_of(&ls[0], "a"), s.text);
}

#[test]
fn emphasis_strong_and_snake_case() {
    let s = st();
    let l = one_line("**bold** and *it* and _em_ and snake_case_name and ***both***");
    assert_eq!(text(&l), "bold and it and em and snake_case_name and both");
    assert_eq!(style_of(&l, "bold"), s.text.patch(s.strong));
    assert_eq!(style_of(&l, "it"), s.text.patch(s.emphasis));
    assert_eq!(style_of(&l, "em"), s.text.patch(s.emphasis));
    assert_eq!(style_of(&l, "snake_case_name"), s.text);
    assert_eq!(
        style_of(&l, "both"),
        s.text.patch(s.strong).patch(s.emphasis)
    );
    // Unmatched or space-flanked delimiters stay literal.
    assert_eq!(text(&one_line("**a")), "**a");
    assert_eq!(text(&one_line("2 * 3 * 4")), "2 * 3 * 4");
    assert_eq!(text(&one_line("a ** b")), "a ** b");
    assert_eq!(text(&one_line("\\*not em\\*")), "*not em*");
    let l = one_line("*a **b** c*");
    assert_eq!(text(&l), "a b c");
    assert_eq!(style_of(&l, "b"), s.text.patch(s.strong).patch(s.emphasis));
}

#[test]
fn inline_code_is_verbatim() {
    let s = st();
    let l = one_line("use `x*y*z` and ``a`b`` and ` `` ` now");
    assert_eq!(text(&l), "use x*y*z and a`b and `` now");
    assert_eq!(style_of(&l, "x*y*z"), s.text.patch(s.code_inline));
    assert_eq!(style_of(&l, "a`b"), s.text.patch(s.code_inline));
    assert_eq!(text(&one_line("a `b")), "a `b");
    // Backslashes inside code stay.
    assert_eq!(text(&one_line("`C:\\dir\\`")), "C:\\dir\\");
}

#[test]
fn links_show_their_url() {
    let s = st();
    let l = one_line("see [the docs](https://x.y/z?q=1) now");
    assert_eq!(text(&l), "see the docs ⟨https://x.y/z?q=1⟩ now");
    assert_eq!(style_of(&l, "the docs"), s.text.patch(s.link));
    assert_eq!(
        text(&one_line("<[https://a.b](https://a.b)>")),
        "<⟨https://a.b⟩>"
    );
    assert_eq!(text(&one_line("![logo](img.png)")), "image: logo ⟨img.png⟩");
    // Not links: space in the URL, no parenthesis, unclosed.
    assert_eq!(text(&one_line("[a](b c)")), "[a](b c)");
    assert_eq!(text(&one_line("[a] (b)")), "[a] (b)");
    assert_eq!(text(&one_line("[a](b")), "[a](b");
    assert_eq!(text(&one_line("[[a](b)]")), "[a ⟨b⟩]");
    // No OSC 8 or other escape in the output, whatever the URL says.
    let l = one_line("[x](javascript:alert(1))");
    assert!(!text(&l).chars().any(char::is_control));
}

#[test]
fn rules_and_quotes() {
    let s = st();
    assert_eq!(text(&one_line("---")), "─".repeat(RULE_WIDTH));
    assert_eq!(text(&one_line("* * *")), "─".repeat(RULE_WIDTH));
    assert_eq!(text(&one_line("___")), "─".repeat(RULE_WIDTH));
    let l = one_line("> quoted **b**");
    assert_eq!(text(&l), "│ quoted b");
    assert_eq!(style_of(&l, "quoted"), s.text.patch(s.quote));
    assert_eq!(style_of(&l, "b"), s.text.patch(s.quote).patch(s.strong));
    assert_eq!(text(&one_line("> > - deep")), "│ │ • deep");
    assert_eq!(text(&one_line(">")), "│ ");
    let many = ">".repeat(1000) + " x";
    assert_eq!(
        text(&one_line(&many)),
        "│ ".repeat(MAX_QUOTE_BARS) + &format!("(+{}) x", 1000 - MAX_QUOTE_BARS)
    );
}

#[test]
fn code_fences_are_separate_blocks() {
    let src = "text\n```rust\nfn main() {\n    let a = *b*;\n}\n```\nafter";
    let blocks = parse(src, &st());
    assert_eq!(blocks.len(), 3);
    assert_eq!(texts(&blocks[..1]), ["text"]);
    assert_eq!(
        blocks[1],
        Block::Code {
            lang: Some("rust".into()),
            code: "fn main() {\n    let a = *b*;\n}".into()
        }
    );
    assert_eq!(texts(&blocks[2..]), ["after"]);

    // Tildes, info strings, a longer fence that a shorter one does not close.
    let blocks = parse("~~~ {.python title=x}\nx\n~~~", &st());
    assert_eq!(
        blocks,
        [Block::Code {
            lang: Some("python".into()),
            code: "x".into()
        }]
    );
    let blocks = parse("````\n```\n````", &st());
    assert_eq!(
        blocks,
        [Block::Code {
            lang: None,
            code: "```".into()
        }]
    );
    // ```x``` on one line is inline code, not a fence.
    assert_eq!(text(&one_line("```x```")), "x");
    // Empty block.
    assert_eq!(
        parse("```\n```", &st()),
        [Block::Code {
            lang: None,
            code: String::new()
        }]
    );
}

#[test]
fn fence_inside_list_item_loses_its_indentation() {
    let blocks = parse(
        "1. run:\n   ```sh\n   ls -l\n     indented\n   ```\n2. next",
        &st(),
    );
    assert_eq!(texts(&blocks), ["1. run:", "<code>", "2. next"]);
    assert_eq!(
        blocks[1],
        Block::Code {
            lang: Some("sh".into()),
            code: "ls -l\n  indented".into()
        }
    );
}

#[test]
fn unterminated_fence_keeps_its_code() {
    let blocks = parse("intro\n```py\nprint(1)\n\nmore", &st());
    assert_eq!(
        blocks[1],
        Block::Code {
            lang: Some("py".into()),
            code: "print(1)\n\nmore".into()
        }
    );
    assert_eq!(blocks.len(), 2);
}

#[test]
fn hostile_lang_tag_is_bounded() {
    let src = format!("```{}<script>\nx\n```", "a".repeat(10_000));
    let blocks = parse(&src, &st());
    let Block::Code {
        lang: Some(lang), ..
    } = &blocks[0]
    else {
        panic!("{blocks:?}")
    };
    assert_eq!(lang.len(), MAX_LANG_CHARS);
}

#[test]
fn plain_code_has_one_line_per_source_line() {
    let s = st();
    assert_eq!(render_plain_code("", &s).len(), 1);
    assert_eq!(render_plain_code("a\n", &s).len(), 1);
    let ls = render_plain_code("a\n\nb\r\nc", &s);
    assert_eq!(ls.iter().map(text).collect::<Vec<_>>(), ["a", "", "b", "c"]);
    assert!(
        ls.iter()
            .flat_map(|l| &l.spans)
            .all(|sp| sp.style == s.code_block)
    );
}

#[test]
fn blank_lines_and_crlf() {
    assert_eq!(texts(&parse("a\r\n\r\nb\n", &st())), ["a", "", "b"]);
    assert!(parse("", &st()).is_empty());
}

#[test]
fn plain_text_passes_through() {
    let src = "Hello, wörld — ␛[31m ⟨ZWSP⟩ 日本語 (a) [b] {c} 3 < 4 > 2";
    assert_eq!(text(&one_line(src)), src);
}

/// Lines built to make naive parsers quadratic: each opener would search the rest of the line.
#[test]
fn million_char_hostile_lines_are_linear() {
    let patterns = [
        "*a", "**a", "_a ", "[", "](", "[a](", "`", "`` ", "![", "\\", "a*", "***", "[]", "> ",
    ];
    for p in patterns {
        let line = p.repeat(1_000_000 / p.len());
        let blocks = parse(&line, &st());
        let total: usize = texts(&blocks).iter().map(|t| t.chars().count()).sum();
        assert!(total > 0, "{p:?}");
    }
}

#[test]
fn five_megabytes_in_one_line() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let alphabet: Vec<char> = "ab *_`[]()!#>-\\~ é日".chars().collect();
    let line: String = (0..5_000_000)
        .map(|_| alphabet[rng.below(alphabet.len())])
        .collect();
    let blocks = parse(&line, &st());
    assert!(!blocks.is_empty());
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

#[test]
fn fuzz_never_panics_and_never_emits_controls() {
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let alphabet: Vec<char> = "ab 1.)*_`~[]()!#>-+\\\n {}.xX é日👍⟨⟩␛".chars().collect();
    let s = st();
    for _ in 0..20_000 {
        let len = rng.below(80);
        let src: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        for b in parse(&src, &s) {
            match b {
                Block::Lines(ls) => {
                    for l in ls {
                        assert!(!text(&l).chars().any(char::is_control), "{src:?}");
                    }
                }
                Block::Code { lang, .. } => {
                    assert!(lang.is_none_or(|l| !l.is_empty() && l.len() <= MAX_LANG_CHARS));
                }
            }
        }
    }
}

/// Found by fuzzing (`fuzz markdown`): emphasis delimiters (and code-span backticks, link brackets) between
/// two stacks of combining marks were removed, joining stacks the sanitiser had each kept under its bound
/// into one flood: `a*` + 8 marks + `*` + 8 marks … drew `a` under 16, 24, … marks.
#[test]
fn removed_markup_does_not_join_combining_stacks_into_a_flood() {
    let marks = "\u{300}".repeat(8);
    let src = format!("a*{marks}*{marks}*{marks}*{marks}*");
    let (clean, _) = crate::trust::sanitize::sanitize_text(&src);
    assert_eq!(clean, src, "each stack is within the sanitiser's bound");
    let line = text(&one_line(&clean));
    assert_eq!(line, format!("a{marks}\u{27E8}+24 marks\u{27E9}*"));
    let code = text(&one_line(&format!("x{marks}`{marks}`")));
    assert_eq!(code, format!("x{marks}\u{27E8}+8 marks\u{27E9}"));
    // A variation selector right after another one is data smuggling, not text: dropped like a mark.
    let vs = text(&one_line("a\u{FE0F}*\u{FE0F}b*"));
    assert_eq!(vs, "a\u{FE0F}\u{27E8}+1 marks\u{27E9}b");
}
