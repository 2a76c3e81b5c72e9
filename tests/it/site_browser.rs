//! Issue 28: the public record as a person sees it, in a real browser. Every
//! game's sample is played through the real pipeline (`nomicbot demo --game
//! NAME`, as `demo` and tests/it/site.rs play them) and its site built (`nomicbot
//! site`); Debian's Chromium, headless and driven through WebDriver by its
//! chromedriver, loads the pages from their files and checks what is seen: the
//! standings, a link from an announcement to the post that caused it, the plots
//! and pictures drawn at a size, and no page wider than a phone. Screenshots of
//! the index and of a game page are left in `target/site-screenshots/` for a
//! person to look at.
//!
//! Needs `chromium` and `chromium-driver` from Debian (`.ci/run` installs them);
//! without them the test fails saying so.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::support::free_port;

/// A phone's width in CSS pixels (and a height), as the smaller iPhones have.
const PHONE: (u32, u32) = (375, 812);
/// A desktop window, for the screenshots.
const DESKTOP: (u32, u32) = (1280, 900);

/// The game whose page is photographed: a board, drawn.
const PHOTOGRAPHED: &str = "contests";

/// `program` on the PATH, or the test fails saying what to install.
fn installed(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{program} is not installed: apt-get install chromium chromium-driver (.ci/run does)"
            )
        })
}

/// chromedriver on a free loopback port, stopped on drop (it ends the
/// browsers it started with it).
struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start(log: &Path) -> Driver {
        let port = free_port();
        let mut child = Command::new(installed("chromedriver"))
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        // It says on its output when it listens; the rest is drained so that
        // it never blocks writing.
        let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut said = Vec::new();
        let ready = lines.by_ref().map_while(Result::ok).any(|line| {
            said.push(line.clone());
            line.contains("started successfully")
        });
        std::thread::spawn(move || lines.for_each(drop));
        let mut driver = Driver { child, port };
        if !ready {
            let status = driver.child.wait().ok();
            panic!(
                "chromedriver did not start on port {port} ({status:?}): {said:?}; see {}",
                log.display()
            );
        }
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn nomicbot(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nomicbot"));
    command.args(args).env("RUST_LOG", "warn");
    command
}

/// Plays every game's sample in a folder of its own and builds its site, the
/// games side by side (they share nothing): (game, the site's folder).
fn sites(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let run = |game: &str, command: &mut Command| {
        let done = command.output().expect("nomicbot runs");
        assert!(
            done.status.success(),
            "{game}: {command:?}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
    };
    let games: Vec<&'static str> = nomicbot::games::samples().iter().map(|s| s.name).collect();
    std::thread::scope(|scope| {
        let building: Vec<_> = games
            .iter()
            .map(|game| {
                scope.spawn(move || {
                    let folder = dir.join(game);
                    run(
                        game,
                        nomicbot(&["demo", "--game", game, "--dir"]).arg(&folder),
                    );
                    let site = folder.join("site");
                    run(
                        game,
                        nomicbot(&["--config"])
                            .arg(folder.join("bot.toml"))
                            .arg("site")
                            .arg(&site),
                    );
                    (*game, site)
                })
            })
            .collect();
        building
            .into_iter()
            .map(|thread| thread.join().expect("the game's site is built"))
            .collect()
    })
}

fn url(file: &Path) -> String {
    format!("file://{}", file.display())
}

/// What the browser shows of the page it is on, measured by the page itself.
const MEASURE: &str = r#"
const box = (e) => { const r = e.getBoundingClientRect(); return { width: r.width, height: r.height }; };
const wide = [...document.body.querySelectorAll('*')]
  .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
  .slice(0, 5)
  .map((e) => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' ' + Math.round(e.getBoundingClientRect().right) + 'px: ' + (e.textContent || '').trim().slice(0, 60));
return {
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth,
  scrollHeight: document.documentElement.scrollHeight,
  wide: wide,
  images: [...document.images].map((i) => Object.assign(box(i), {
    src: i.getAttribute('src'), alt: i.getAttribute('alt'), natural: i.naturalWidth, complete: i.complete })),
};
"#;

/// A test's findings: each failed check in words, so that the browser is
/// closed before the test fails, and every page is checked in one run.
#[derive(Default)]
struct Findings {
    problems: Vec<String>,
}

impl Findings {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.problems.push(what());
        }
    }
}

async fn measure(client: &Client) -> Value {
    client.execute(MEASURE, Vec::new()).await.expect("measure")
}

/// At a phone's width the page needs no scrolling sideways, and every picture
/// on it is drawn at a size from a file with something in it.
async fn looks_right_on_a_phone(client: &Client, site: &Path, page: &str, found: &mut Findings) {
    client.goto(&url(&site.join(page))).await.expect("goto");
    let seen = measure(client).await;
    let (scroll, inner) = (
        seen["scrollWidth"].as_f64().unwrap_or(f64::MAX),
        seen["innerWidth"].as_f64().unwrap_or(0.0),
    );
    found.check(inner <= f64::from(PHONE.0), || {
        format!("{page}: the window is {inner}px wide, not a phone's")
    });
    found.check(scroll <= inner, || {
        format!(
            "{page} ({}): {scroll}px wide in a {inner}px window; wider than it: {}",
            site.display(),
            seen["wide"]
        )
    });
    for image in seen["images"].as_array().into_iter().flatten() {
        let src = image["src"].as_str().unwrap_or_default();
        let drawn = image["width"].as_f64().unwrap_or(0.0) > 0.0
            && image["height"].as_f64().unwrap_or(0.0) > 0.0
            && image["natural"].as_f64().unwrap_or(0.0) > 0.0;
        found.check(drawn, || {
            format!("{page}: the picture {src} is not drawn: {image}")
        });
        let file = std::fs::read_to_string(site.join(src)).unwrap_or_default();
        found.check(file.contains("<svg") && file.len() > 200, || {
            format!("{page}: {src} is empty: {file:?}")
        });
        found.check(
            image["alt"].as_str().is_some_and(|alt| !alt.is_empty()),
            || format!("{page}: {src} has no text alternative"),
        );
    }
}

/// The rows of the standings tables on the page: each cell's text, as shown.
async fn standings(client: &Client) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for row in client
        .find_all(Locator::Css("table.standings tbody tr"))
        .await
        .expect("rows")
    {
        let mut cells = Vec::new();
        for cell in row.find_all(Locator::Css("th, td")).await.expect("cells") {
            cells.push(cell.text().await.expect("text"));
        }
        rows.push(cells);
    }
    rows
}

/// The links, seen on the page, from announcements to the posts that caused
/// them: a `mid:` link, or the list archive's address.
async fn links_to_posts(client: &Client) -> Vec<String> {
    let mut links = Vec::new();
    for link in client
        .find_all(Locator::Css("article.announcement p.meta a"))
        .await
        .expect("links")
    {
        let href = link.attr("href").await.expect("href").unwrap_or_default();
        if (href.starts_with("mid:") || href.starts_with("http"))
            && link.is_displayed().await.expect("displayed")
        {
            links.push(href);
        }
    }
    links
}

/// The whole page as one picture: the window made as tall as the page.
async fn photograph(client: &Client, page: &Path, (width, height): (u32, u32), to: &Path) {
    client.set_window_size(width, height).await.expect("resize");
    client.goto(&url(page)).await.expect("goto");
    let tall = measure(client).await["scrollHeight"]
        .as_u64()
        .and_then(|h| u32::try_from(h).ok())
        .unwrap_or(height);
    client
        .set_window_size(width, tall.clamp(height, 12_000))
        .await
        .expect("resize");
    let png = client.screenshot().await.expect("screenshot");
    std::fs::write(to, png).expect("screenshot written");
}

async fn look(client: &Client, sites: &[(&str, PathBuf)], shots: &Path) -> Findings {
    let mut found = Findings::default();
    client
        .set_window_size(PHONE.0, PHONE.1)
        .await
        .expect("a phone's width");
    let mut standing = Vec::new();
    let mut linked = Vec::new();
    let mut pictures = 0;
    for (game, site) in sites {
        let page = format!("game-{game}.html");
        looks_right_on_a_phone(client, site, "index.html", &mut found).await;
        // The index: every player who joined, in the standings, with a balance.
        let rows = standings(client).await;
        for name in ["Mod", "Alice", "Bob", "Carol", "Dave"] {
            found.check(
                rows.iter()
                    .any(|row| row.first().is_some_and(|n| n == name) && row.len() > 1),
                || format!("{game}: index: no standing of {name}: {rows:?}"),
            );
        }
        pictures += measure(client).await["images"]
            .as_array()
            .map_or(0, Vec::len);
        looks_right_on_a_phone(client, site, &page, &mut found).await;
        pictures += measure(client).await["images"]
            .as_array()
            .map_or(0, Vec::len);
        let rows = standings(client).await;
        if !rows.is_empty() {
            found.check(
                rows.iter()
                    .all(|row| row.len() == 2 && row.iter().all(|cell| !cell.is_empty())),
                || format!("{page}: a standings row without a player or a score: {rows:?}"),
            );
            standing.push(*game);
        }
        if !links_to_posts(client).await.is_empty() {
            linked.push(*game);
        }
    }
    // The games that score show their standings: the contests' sample ends
    // with points the referee awarded.
    found.check(standing.contains(&"contests"), || {
        format!("no standings on the contests page; on: {standing:?}")
    });
    // Every game's history links to the posts that caused it (each sample
    // plays on the list).
    for (game, _) in sites {
        found.check(linked.contains(game), || {
            format!("game-{game}.html: no announcement links to its post")
        });
    }
    // A balances plot on every index, a picture on the Space and contests pages.
    found.check(pictures >= sites.len() + 2, || {
        format!("{pictures} pictures on {} sites", sites.len())
    });
    let site = |game: &str| {
        sites
            .iter()
            .find(|(g, _)| *g == game)
            .map(|(_, site)| site.clone())
            .expect("the game's site")
    };
    let photographed = site(PHOTOGRAPHED);
    for (size, suffix) in [(PHONE, ""), (DESKTOP, "-wide")] {
        photograph(
            client,
            &site("vote").join("index.html"),
            size,
            &shots.join(format!("index{suffix}.png")),
        )
        .await;
        photograph(
            client,
            &photographed.join(format!("game-{PHOTOGRAPHED}.html")),
            size,
            &shots.join(format!("game-{PHOTOGRAPHED}{suffix}.png")),
        )
        .await;
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_site_of_every_game_shows_its_standings_links_and_pictures_and_fits_a_phone_in_chromium()
 {
    let chromium = installed("chromium");
    let dir = tempfile::tempdir().expect("temporary folder");
    let sites = sites(dir.path());
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("site-screenshots");
    std::fs::create_dir_all(&shots).expect("screenshots folder");

    let driver = Driver::start(&dir.path().join("chromedriver.log"));
    let profile = dir.path().join("chromium-profile");
    let mut capabilities = fantoccini::wd::Capabilities::new();
    capabilities.insert(
        "goog:chromeOptions".to_owned(),
        json!({
            "binary": chromium,
            "args": [
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                format!("--user-data-dir={}", profile.display()),
                format!("--window-size={},{}", PHONE.0, PHONE.1),
            ],
        }),
    );
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a Chromium session through chromedriver");
    let found = look(&client, &sites, &shots).await;
    client.close().await.ok();
    drop(driver);
    assert!(
        found.problems.is_empty(),
        "as seen in Chromium:\n{}",
        found.problems.join("\n")
    );
    for shot in ["index.png", "game-contests.png"] {
        let png = std::fs::read(shots.join(shot)).unwrap_or_default();
        assert!(png.starts_with(b"\x89PNG"), "{shot} is not a picture");
    }
}
