//! The `a2a-console` binary: parse arguments, set up logging, then run a CLI subcommand or the console.

use std::process::ExitCode;

use clap::Parser;

use a2a_console::cli::exit::Exit;
use a2a_console::cli::{self, Cli};
use a2a_console::tui::Ended;

/// jemalloc rather than the system allocator. A stream's events are decoded on one thread and judged,
/// printed and dropped on another (`remote::wire::read_ahead`); with glibc's malloc both threads were seen
/// waiting on the decoding thread's arena lock (the README's "The wire" has what the change measured).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    // A completion request from the shell's script (`completions`): answered here, before anything is printed.
    cli::completions::answer_if_asked();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (our code 2); under
            // --json a usage error is one JSON object like every other error.
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            if cli::report::asks_for_json(std::env::args_os()) {
                cli::report::set_json(true);
                let text = e.render().to_string();
                let text = text.trim().trim_start_matches("error: ");
                return ExitCode::from(
                    cli::report::failure(cli::report::Kind::Usage, text, Exit::Usage).code(),
                );
            }
            let _ = e.print();
            return ExitCode::from(Exit::Usage.code());
        }
    };
    if cli.command.is_some() {
        // The console logs to a file instead: the terminal belongs to the UI.
        init_logging();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            if let Some(command) = &cli.command {
                cli::report::set_json(cli::json_of(command));
            }
            let said = format!("cannot start the async runtime: {e}");
            let code = cli::report::failure(cli::report::Kind::Transport, &said, Exit::Transport);
            return ExitCode::from(code.code());
        }
    };
    let code = runtime.block_on(async move {
        match cli.command {
            Some(command) => Ok(cli::run(cli.global, command).await),
            None => match a2a_console::tui::run(cli.global.overrides(), cli.demo).await {
                Ok(Ended::Quit) => Ok(Exit::Done),
                // The shell's convention for "ended by signal N", so a supervisor sees why it stopped.
                Ok(Ended::Signal(n)) => Err(u8::try_from(128 + n).unwrap_or(u8::MAX)),
                Err(e) => {
                    eprintln!("a2a-console: {e}");
                    Ok(Exit::Usage)
                }
            },
        }
    });
    match code {
        Ok(code) => ExitCode::from(code.code()),
        Err(raw) => ExitCode::from(raw),
    }
}

/// CLI logs go to stderr, off unless `A2A_CONSOLE_LOG` asks (e.g. `A2A_CONSOLE_LOG=a2a_client::wire=debug`).
fn init_logging() {
    let Ok(filter) = std::env::var("A2A_CONSOLE_LOG") else {
        return;
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(a2a_console::trust::redact::Redacting(std::io::stderr))
        .try_init();
}
