//! A very small HTTP/1.1 server for read-only pages: `GET` (and `HEAD`) of a path, a whole
//! response or a Server-Sent Events stream, one request per connection. An event stream sends
//! each connection only what changed since it last sent (an [`Update`]'s parts): while a
//! player thinks, an update is a few bytes of clock, not the whole page again. Enough for a browser, a
//! broadcaster polling a PGN and `curl`; nothing a viewer sends can change the game (there is no
//! route that takes anything). Connections are limited in number, a request must arrive within
//! a few seconds, and every loop ends on the cancellation.

use std::{sync::Arc, time::Duration};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::{Semaphore, watch},
    time::Instant,
};
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use super::view::{ClocksView, Made};

/// Connections served at once; more are told to come back (503).
pub const MAX_CONNECTIONS: usize = 512;
/// A request's head must arrive within this.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest request head read.
const MAX_HEAD: usize = 8 * 1024;
/// A comment on an idle event stream, so that proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What a route answers.
pub enum Response {
    /// A whole body.
    Full {
        status: u16,
        content_type: &'static str,
        body: String,
    },
    /// An event stream: of each value of the channel, the parts that differ from what this
    /// connection sent before (all of them at first) go as one event, a JSON object.
    Events(watch::Receiver<Arc<Update>>),
}

/// One update of a page: named parts, each already a JSON value (made once for all viewers),
/// and the clocks, which each connection brings up to the moment it sends them (a page that
/// connects while a player thinks counts down from his clock as it stands, not as it stood when
/// the update was made).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Update {
    pub parts: Vec<(&'static str, Arc<str>)>,
    /// The clocks, and when they stood so: sent as the part `clocks`.
    pub clocks: Option<(ClocksView, Made)>,
}

impl Update {
    /// The JSON object of the parts that differ from `sent` (the parts last sent, by name),
    /// the clocks as they stand at `now`; or `None` when nothing differs. `sent` then holds
    /// these parts.
    pub fn changes(
        &self,
        sent: &mut Vec<(&'static str, Arc<str>)>,
        now: Instant,
    ) -> Option<String> {
        let clocks = self.clocks.as_ref().map(|(clocks, made)| {
            let clocks = clocks.advanced(made.elapsed_ms(now));
            let json: Arc<str> = serde_json::to_string(&clocks)
                .unwrap_or_else(|_| "null".into())
                .into();
            ("clocks", json)
        });
        let mut object = String::from("{");
        for (name, value) in self.parts.iter().chain(clocks.iter()) {
            match sent.iter_mut().find(|(n, _)| n == name) {
                Some((_, old)) if old == value => continue,
                Some((_, old)) => *old = value.clone(),
                None => sent.push((name, value.clone())),
            }
            if object.len() > 1 {
                object.push(',');
            }
            // A part's name is one of the page's own identifiers: no escaping needed.
            object.push_str(&format!("\"{name}\":{value}"));
        }
        object.push('}');
        (object.len() > 2).then_some(object)
    }
}

impl Response {
    pub fn ok(content_type: &'static str, body: String) -> Response {
        Response::Full {
            status: 200,
            content_type,
            body,
        }
    }

    pub fn not_found() -> Response {
        Response::Full {
            status: 404,
            content_type: "text/plain; charset=utf-8",
            body: "not found\n".into(),
        }
    }
}

/// Serve `listener` until `cancel`, answering each request's path with `route`.
pub async fn serve<R>(listener: TcpListener, route: R, cancel: CancellationToken)
where
    R: Fn(&str) -> Response + Send + Sync + 'static,
{
    let route = Arc::new(route);
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let (stream, peer) = tokio::select! {
            _ = cancel.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors, say: wait a moment rather than spin.
                    warn!("web: cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let permit = permits.clone().try_acquire_owned().ok();
        let route = route.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let result = match permit {
                Some(_permit) => connection(stream, &*route, &cancel).await,
                None => busy(stream).await,
            };
            if let Err(e) = result {
                debug!(%peer, "web connection ended: {e}");
            }
        });
    }
}

async fn busy(mut stream: TcpStream) -> std::io::Result<()> {
    let body = "too many viewers; try again shortly\n";
    write_head(
        &mut stream,
        503,
        "text/plain; charset=utf-8",
        Some(body.len()),
    )
    .await?;
    stream.write_all(body.as_bytes()).await
}

/// One request: read its head, answer it.
async fn connection(
    mut stream: TcpStream,
    route: &(dyn Fn(&str) -> Response + Send + Sync),
    cancel: &CancellationToken,
) -> std::io::Result<()> {
    let head = match tokio::time::timeout(REQUEST_TIMEOUT, read_head(&mut stream)).await {
        Ok(head) => head?,
        Err(_) => return Ok(()),
    };
    let mut words = head.lines().next().unwrap_or("").split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let path = target.split(['?', '#']).next().unwrap_or("");
    if method != "GET" && method != "HEAD" {
        let body = "read-only: only GET\n";
        write_head(
            &mut stream,
            405,
            "text/plain; charset=utf-8",
            Some(body.len()),
        )
        .await?;
        return stream.write_all(body.as_bytes()).await;
    }
    match route(path) {
        Response::Full {
            status,
            content_type,
            body,
        } => {
            write_head(&mut stream, status, content_type, Some(body.len())).await?;
            if method == "GET" {
                stream.write_all(body.as_bytes()).await?;
            }
            stream.shutdown().await
        }
        Response::Events(mut events) => {
            write_head(&mut stream, 200, "text/event-stream", None).await?;
            if method == "HEAD" {
                return Ok(());
            }
            stream.write_all(b"retry: 1000\n\n").await?;
            let mut sent = Vec::new();
            loop {
                let update = events.borrow_and_update().clone();
                if let Some(data) = update.changes(&mut sent, Instant::now()) {
                    stream
                        .write_all(format!("data: {data}\n\n").as_bytes())
                        .await?;
                }
                loop {
                    tokio::select! {
                        _ = cancel.cancelled() => return Ok(()),
                        changed = events.changed() => {
                            if changed.is_err() {
                                return Ok(());
                            }
                            break;
                        }
                        _ = tokio::time::sleep(KEEP_ALIVE) => {
                            stream.write_all(b": still here\n\n").await?;
                        }
                    }
                }
            }
        }
    }
}

async fn read_head(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && !head.windows(2).any(|w| w == b"\n\n") {
        if head.len() > MAX_HEAD {
            return Err(std::io::Error::other("request head too long"));
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

async fn write_head(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    length: Option<usize>,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        503 => "Service Unavailable",
        _ => "",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nAccess-Control-Allow-Origin: *\r\n"
    );
    match length {
        Some(n) => head.push_str(&format!("Content-Length: {n}\r\nConnection: close\r\n")),
        None => head.push_str("Connection: keep-alive\r\n"),
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_is_sent_only_what_changed_since_it_last_sent() {
        let update = |clock: &str, board: &str| Update {
            parts: vec![("turn", clock.into()), ("boards", board.into())],
            clocks: None,
        };
        let now = Instant::now();
        let mut sent = Vec::new();
        assert_eq!(
            update("1", "\"b\"").changes(&mut sent, now).as_deref(),
            Some("{\"turn\":1,\"boards\":\"b\"}"),
            "all at first"
        );
        assert_eq!(
            update("2", "\"b\"").changes(&mut sent, now).as_deref(),
            Some("{\"turn\":2}")
        );
        assert_eq!(update("2", "\"b\"").changes(&mut sent, now), None);
        assert_eq!(
            update("2", "\"c\"").changes(&mut sent, now).as_deref(),
            Some("{\"boards\":\"c\"}")
        );
    }

    #[test]
    fn the_clocks_are_sent_as_they_stand_when_sent() {
        let made = Instant::now();
        let update = Update {
            parts: vec![("turn", "\"White to move\"".into())],
            clocks: Some((
                ClocksView {
                    white_ms: 60_000,
                    black_ms: 50_000,
                    running: Some("white".into()),
                    delay_ms: 0,
                },
                Made(Some(made)),
            )),
        };
        let mut sent = Vec::new();
        let first = update
            .changes(&mut sent, made + Duration::from_millis(700))
            .unwrap();
        assert!(first.contains("\"white_ms\":59300"), "{first}");
        let again = update
            .changes(&mut sent, made + Duration::from_secs(2))
            .unwrap();
        assert_eq!(
            again,
            "{\"clocks\":{\"white_ms\":58000,\"black_ms\":50000,\"running\":\"white\",\"delay_ms\":0}}"
        );
    }
}
