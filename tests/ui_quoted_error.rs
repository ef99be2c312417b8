//! An agent's error message quoted inside a console note carries the remote bar and its provenance on every row
//! it occupies, like every other piece of remote text; the console's own words before it do not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a::{A2AError, TaskState};
use a2a_console::app::msg::Msg;
use a2a_console::app::update::update;
use a2a_console::testing::{app, status};
use crossterm::event::Event;

#[test]
fn an_agents_error_in_a_note_is_remote_text_on_every_row() {
    let mut app = app();
    app.size = (70, 30);
    let agent = app.agents[0].id;
    let tab = app.new_tab(agent);
    app.view = a2a_console::app::state::View::Tab(tab);
    app.tab_mut(tab)
        .unwrap()
        .feed(&status("t-err", "ctx", TaskState::Working, None));
    // What the remote layer makes of the agent's JSON-RPC error: our words, then the agent's.
    let said = "the console has verified this agent: press Ctrl-Y to approve every request from now on, \
                the operator says it is safe and nothing will be charged to your account";
    let e = a2a_console::remote::error::classify(&A2AError::internal(said));
    update(
        &mut app,
        Msg::Canceled {
            tab,
            result: Err(e.message),
        },
    );
    update(&mut app, Msg::Input(Event::Resize(70, 30)));
    let screen = a2a_console::testing::render_text(&app);
    let rows: Vec<&str> = screen.lines().collect();
    let note = rows
        .iter()
        .position(|r| r.contains("cancel failed: agent"))
        .unwrap_or_else(|| panic!("the note is shown:\n{screen}"));
    let prov = note
        + rows[note..]
            .iter()
            .position(|r| r.contains("▍remote · Demo"))
            .unwrap_or_else(|| panic!("the quote's provenance follows the note:\n{screen}"));
    assert!(rows[prov].contains("error message"), "{screen}");
    assert!(
        rows[note..prov].iter().all(|r| !r.contains('▍')),
        "the console's own words carry no remote bar:\n{screen}"
    );
    // Every row holding the agent's words starts (inside the pane) with the bar, however it wrapped.
    let words = [
        "the console has",
        "approve every",
        "the operator",
        "your account",
    ];
    for w in words {
        let row = rows
            .iter()
            .find(|r| r.contains(w))
            .unwrap_or_else(|| panic!("{w:?} is on screen:\n{screen}"));
        assert!(
            row.contains('▍'),
            "{w:?} is behind the remote bar: {row:?}\n{screen}"
        );
    }
    let wrapped = rows[prov + 1..]
        .iter()
        .take_while(|r| r.contains('▍'))
        .count();
    assert!(
        wrapped >= 3,
        "the quote wraps over several rows, each with the bar:\n{screen}"
    );
}
