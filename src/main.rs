//! The command line: parses arguments and calls the library. Nothing else.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use jiff::Timestamp;

use nomicbot::config::Config;
use nomicbot::pipeline::{Bot, PipelineError};
use nomicbot::store::InboxStatus;
use nomicbot::store::lock::LockError;
use nomicbot::{cli, demo, run};

#[derive(Parser)]
#[command(
    name = "nomicbot",
    version,
    about = "The automated officer of a nomic played by e-mail"
)]
struct Args {
    /// The configuration file.
    #[arg(
        long,
        global = true,
        env = "NOMICBOT_CONFIG",
        default_value = "bot.toml"
    )]
    config: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The daemon: IMAP IDLE (or polling) for new mail, deadlines fired on time.
    Run,
    /// One pass: fetch, apply, fire the deadlines due by now, send, exit (for cron).
    ///
    /// Exit code 69 when mail could not all be sent (it waits in the outbox for
    /// the next pass), 75 when another nomicbot holds the database.
    Once {
        /// Take this as the current time (RFC 3339), e.g. for tests.
        #[arg(long)]
        now: Option<Timestamp>,
        #[command(flatten)]
        lock: LockWait,
    },
    /// Apply raw messages (.eml files or mbox archives) without a mail server.
    Ingest {
        files: Vec<PathBuf>,
        /// Their arrival time (RFC 3339); default: now.
        #[arg(long)]
        received: Option<Timestamp>,
        #[arg(long)]
        now: Option<Timestamp>,
        #[command(flatten)]
        lock: LockWait,
    },
    /// The current state, as text for people (`--json` for programs).
    ///
    /// Without PART: everything, the players first. Player ids are shown with
    /// the players' names.
    State {
        /// One part only: players (or nomic), bindings, accounts, ruleset,
        /// schedule, random, sealed, offices, inventory, or a game by its name
        /// or tag (gnomic, ghost, ruletag, ping, boons, bogusity, vote).
        #[arg(value_name = "PART")]
        game: Option<String>,
        /// Print JSON instead of text (ids as stored, each with the player's
        /// name beside it as `<key>_name`).
        #[arg(long)]
        json: bool,
        /// Also show what is still secret (a running random period's seed, sealed
        /// actions before their reveal): for the operator's eyes only.
        #[arg(long)]
        private: bool,
    },
    /// Pending and sent mail.
    Outbox {
        /// Print JSON, each message with its headers and body.
        #[arg(long)]
        json: bool,
    },
    /// Every message received and what became of it (`--status aside`: kept aside, with the reason).
    Inbox {
        /// Only the messages in this state: pending, applied, aside or duplicate.
        #[arg(long)]
        status: Option<String>,
        /// Print JSON instead of one line a message (time, sender, subject, what
        /// became of it, the reason).
        #[arg(long)]
        json: bool,
        /// Give these messages kept aside back to the bot (a moderator's choice
        /// for messages held by a flood bound): the next pass applies them, past
        /// the bounds.
        #[arg(long, value_name = "ID")]
        release: Vec<i64>,
        #[command(flatten)]
        lock: LockWait,
    },
    /// The event log, grouped by what caused each event (a message: its time,
    /// sender and subject; a deadline; an import).
    Log {
        /// Print every event whole, as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the public record as a static web site (HTML, one CSS file, Atom
    /// feeds, an iCalendar file of the deadlines) into OUT, rewriting only the
    /// files that changed. Only what is public goes in. A folder built before
    /// is brought up to date from where its last build stopped.
    Site {
        /// The site's folder; default: `[site] dir` of the configuration.
        #[arg(value_name = "OUT")]
        out: Option<PathBuf>,
        /// Build the whole site from the whole log, as for a new folder (after
        /// editing the site's templates, or mending the folder by hand).
        #[arg(long)]
        full: bool,
    },
    /// Rebuild the state from the event log and compare it with the live state.
    Replay,
    /// Re-run every draw of every finished random period from its published seed,
    /// and check them against the record (the event log).
    VerifyRandom,
    /// Check a sealed batch from the archive: the commitments mail and the reveal
    /// mail (.eml files) must match, action by action.
    VerifySealed {
        commitments: PathBuf,
        reveal: PathBuf,
    },
    /// Import a rule text into the registry, announced on the list: a text
    /// shipped with the bot by name (`--list` lists them), or a file (a
    /// ruleset page, or "Create a new rule" blocks).
    ImportRules {
        /// A shipped text's name (gnomic, ackanomic, ghost, rule-tag, space) or
        /// a file's path.
        #[arg(required_unless_present = "list", value_name = "NAME|FILE")]
        text: Option<String>,
        /// List the shipped texts and the games that follow each.
        #[arg(long)]
        list: bool,
        /// Import a text of one rule under this number (when the registry
        /// gives its own number to a rule of another name).
        #[arg(long, value_name = "N")]
        number: Option<u32>,
        #[arg(long)]
        now: Option<Timestamp>,
        #[command(flatten)]
        lock: LockWait,
    },
    /// Write a commented bot.toml (and the default templates) for a new game.
    Init {
        /// Overwrite an existing bot.toml.
        #[arg(long)]
        force: bool,
    },
    /// Validate the configuration and every template.
    Check {
        /// Also log in to the IMAP and SMTP servers (nothing is fetched or
        /// sent) and say what was found; exit code 1 if either fails.
        #[arg(long)]
        connect: bool,
    },
    /// Play a short scripted exchange through the real pipeline on the embedded
    /// Maildir transport, and print the mail the bot sent.
    Demo {
        /// Where to keep the demo's files (default: a fresh temporary folder,
        /// removed when the demo ends).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Which exchange: the player registry (`nomic`, the default), or a
        /// registered game's sample after the samples' setup.
        #[arg(
            long,
            default_value = demo::REGISTRY,
            value_parser = clap::builder::PossibleValuesParser::new(demo::names())
        )]
        game: String,
    },
}

/// One process at a time applies or sends for a database (its lock file,
/// `<database>.lock`): how long a second one waits for the first to finish.
#[derive(clap::Args)]
struct LockWait {
    /// Seconds to wait for another nomicbot busy with the same database
    /// (a cron job's previous pass, the daemon) before giving up with exit code 75.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    lock_wait: u64,
}

impl LockWait {
    fn duration(&self) -> Duration {
        Duration::from_secs(self.lock_wait)
    }
}

/// The exit code when another nomicbot holds the database's lock: EX_TEMPFAIL of
/// sysexits.h, "try again later", which is what a cron job should do.
const EXIT_LOCKED: u8 = 75;

/// The exit code of a `once` whose mail could not all be sent (the server down
/// or refusing): EX_UNAVAILABLE of sysexits.h. The mail stays in the outbox.
const EXIT_NOT_SENT: u8 = 69;

fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    match execute(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("nomicbot: {}", one_line(&error));
            if is_locked(&error) {
                ExitCode::from(EXIT_LOCKED)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// The error and its causes on one line, each said once: most errors include
/// their cause's words in their own already.
fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// Opens the bot to read: no lock.
fn open(config: &std::path::Path) -> Result<Bot> {
    let config = Config::load(config)?;
    Ok(Bot::open(config)?)
}

/// Opens the bot to apply or send: holds the database's lock until it exits.
fn open_exclusive(config: &std::path::Path, wait: Duration) -> Result<Bot> {
    let config = Config::load(config)?;
    // Said here, once per run: the commands that only read stay quiet.
    if let Some(warning) = config.trust_warning() {
        tracing::warn!("{warning}");
    }
    Ok(Bot::open_exclusive(config, wait)?)
}

fn is_locked(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<PipelineError>(),
            Some(PipelineError::Lock(LockError::Busy { .. }))
        ) || matches!(
            cause.downcast_ref::<LockError>(),
            Some(LockError::Busy { .. })
        )
    })
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn execute(args: Args) -> Result<ExitCode> {
    match args.command {
        Command::Run => {
            // A second daemon beside a running one refuses at once.
            let mut bot = open_exclusive(&args.config, Duration::ZERO).map_err(|error| {
                if is_locked(&error) {
                    error.context("not starting a second daemon")
                } else {
                    error
                }
            })?;
            runtime()?.block_on(async {
                let stop = run::stop_signal().context("cannot listen for signals")?;
                // Said once SIGTERM and ctrl-c are in hand, so a stop from now on is clean.
                tracing::info!(config = %args.config.display(), transport = ?bot.config.transport, "nomicbot running");
                run::run(&mut bot, stop).await.map_err(anyhow::Error::from)
            })?;
            tracing::info!("nomicbot stopped");
        }
        Command::Once { now, lock } => {
            let mut bot = open_exclusive(&args.config, lock.duration())?;
            let now = now.unwrap_or_else(Timestamp::now);
            // The transport (its SMTP pool) must be dropped inside the runtime.
            let pass = runtime()?.block_on(async {
                let mut transport = run::Transport::new(&bot.config);
                transport.show_progress();
                let pass = run::once(&mut bot, &mut transport, now).await;
                transport.hide_progress();
                transport.close().await;
                pass
            })?;
            println!(
                "fetched {}, applied {}, kept aside {}, deadlines {}, sent {}, not sent yet {}, refused {}",
                pass.fetched,
                pass.processed.applied,
                pass.processed.aside,
                pass.processed.deadlines,
                pass.sent,
                pass.failed,
                pass.refused
            );
            if pass.failed + pass.refused > 0 {
                eprintln!(
                    "nomicbot: {}",
                    cli::unsent(&bot, pass.failed, pass.refused)?
                );
                return Ok(ExitCode::from(EXIT_NOT_SENT));
            }
        }
        Command::Ingest {
            files,
            received,
            now,
            lock,
        } => {
            let mut bot = open_exclusive(&args.config, lock.duration())?;
            let now = now.unwrap_or_else(Timestamp::now);
            let report = cli::ingest(&mut bot, &files, received.unwrap_or(now), now)?;
            println!("{report}");
        }
        Command::State {
            game,
            json,
            private,
        } => {
            let bot = open(&args.config)?;
            print!("{}", cli::state(&bot, game.as_deref(), json, private)?);
        }
        Command::Outbox { json } => {
            let bot = open(&args.config)?;
            print!("{}", cli::outbox(&bot, json)?);
        }
        Command::Inbox {
            status,
            json,
            release,
            lock,
        } => {
            if !release.is_empty() {
                let mut bot = open_exclusive(&args.config, lock.duration())?;
                println!("{}", cli::release(&mut bot, &release)?);
                return Ok(ExitCode::SUCCESS);
            }
            let bot = open(&args.config)?;
            let status = match status.as_deref() {
                None => None,
                Some("pending") => Some(InboxStatus::Pending),
                Some("applied") => Some(InboxStatus::Applied),
                Some("aside") => Some(InboxStatus::Aside),
                Some("duplicate") => Some(InboxStatus::Duplicate),
                Some(other) => {
                    bail!("--status {other:?}: use pending, applied, aside or duplicate")
                }
            };
            print!("{}", cli::inbox(&bot, status, json)?);
        }
        Command::Log { json } => {
            let bot = open(&args.config)?;
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            // A reader that stops early (`| head`) is not an error.
            let written =
                cli::log(&bot, json, &mut out).and_then(|()| Ok(std::io::Write::flush(&mut out)?));
            if let Err(error) = written
                && !error.chain().any(|cause| {
                    cause
                        .downcast_ref::<std::io::Error>()
                        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                })
            {
                return Err(error);
            }
        }
        Command::Site { out, full } => {
            let bot = open(&args.config)?;
            let out = match out {
                Some(out) => out,
                None => match &bot.config.site.dir {
                    Some(dir) => bot.config.resolve(dir),
                    None => {
                        bail!("say where to write the site (nomicbot site OUT/), or set [site] dir")
                    }
                },
            };
            println!("{}", cli::site(&bot, &out, full)?);
        }
        Command::Replay => {
            let bot = open(&args.config)?;
            let (equal, text) = cli::replay(&bot)?;
            println!("{text}");
            if !equal {
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::VerifyRandom => {
            let bot = open(&args.config)?;
            let (ok, text) = cli::verify_random(&bot)?;
            println!("{text}");
            if !ok {
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::VerifySealed {
            commitments,
            reveal,
        } => {
            let (ok, text) = cli::verify_sealed(&commitments, &reveal)?;
            println!("{text}");
            if !ok {
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::ImportRules {
            text,
            list,
            number,
            now,
            lock,
        } => {
            let Some(text) = text.filter(|_| !list) else {
                print!("{}", nomicbot::rule_texts::list());
                return Ok(ExitCode::SUCCESS);
            };
            let (label, content) = match nomicbot::rule_texts::find(&text) {
                Some(shipped) => (shipped.name.to_owned(), shipped.text.to_owned()),
                None => match std::fs::read_to_string(&text) {
                    Ok(content) => (text.clone(), content),
                    Err(error) => bail!(
                        "{text} is neither a shipped rule text ({}) nor a file that can be read ({error}); nomicbot import-rules --list lists the texts",
                        nomicbot::rule_texts::names().join(", ")
                    ),
                },
            };
            let mut bot = open_exclusive(&args.config, lock.duration())?;
            match bot.import_rules_as(&content, number, now.unwrap_or_else(Timestamp::now))? {
                Ok(imported) => {
                    let rules: Vec<String> = imported
                        .rules
                        .iter()
                        .map(|(number, name)| format!("{number} {name}"))
                        .collect();
                    // A few rules on the line; a whole ruleset one to a line.
                    let listed = if rules.len() <= 5 {
                        format!(" ({})", rules.join(", "))
                    } else {
                        String::new()
                    };
                    println!(
                        "imported {label}: {} rule(s){listed}; {} change(s); the announcement is in the outbox",
                        rules.len(),
                        imported.changes
                    );
                    if rules.len() > 5 {
                        for rule in &rules {
                            println!("  {rule}");
                        }
                    }
                    let shipped = nomicbot::rule_texts::matching(&content);
                    if let (Some(number), Some(key)) = (number, shipped.and_then(|t| t.number_key))
                    {
                        println!(
                            "set {key} = {number} in bot.toml so that the game follows rule {number}"
                        );
                    } else if let Some(shipped) = shipped {
                        // A game bound to the text under other numbers than
                        // the import gave (Rule Tag's, numbered from the next
                        // free number) follows none of it until told.
                        let numbers: Vec<u32> = imported.rules.iter().map(|(n, _)| *n).collect();
                        for declared in bot.params().setting.bound.iter() {
                            let bound = declared.rules();
                            if declared.text != shipped.name
                                || bound.iter().all(|rule| numbers.contains(rule))
                            {
                                continue;
                            }
                            let list = |numbers: &[u32]| {
                                numbers
                                    .iter()
                                    .map(u32::to_string)
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            };
                            println!(
                                "{} follows rules {} (bot.toml's [{}]), and the text's rules are {}: set the game's rule numbers there to follow them",
                                declared.game,
                                list(&bound),
                                declared.game,
                                list(&numbers)
                            );
                        }
                    }
                }
                Err(why) => bail!("{label} cannot be imported: {why}"),
            }
        }
        Command::Init { force } => {
            println!("{}", cli::init(&args.config, force)?);
        }
        Command::Check { connect } => {
            let config = Config::load(&args.config)?;
            println!("{}", cli::check(config.clone())?);
            if connect {
                let (ok, text) = runtime()?.block_on(cli::check_connect(&config));
                println!("{text}");
                if !ok {
                    return Ok(ExitCode::FAILURE);
                }
            }
        }
        Command::Demo { dir, game } => {
            let text = demo::run(dir, &game)?;
            print!("{text}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
