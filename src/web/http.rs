//! A very small HTTP/1.1 server for read-only pages: `GET` (and `HEAD`) of a path, a whole
//! response or a Server-Sent Events stream, one request per connection. An event stream sends
//! each connection only what changed since it last sent (an [`Update`]'s parts): while a
//! player thinks, an update is a few bytes of clock, not the whole page again. Enough for a browser, a
//! broadcaster polling a PGN and `curl`; nothing a viewer sends can change the game (there is no
//! route that takes anything). Every loop ends on the cancellation.
//!
//! Trust no one ([`Access`]): a request is answered only when its `Host` is a name the page
//! serves (the names configured, loopback, this computer's own name, the address the viewer
//! connected to), so that a web page elsewhere cannot read the table through DNS rebinding; no
//! other origin may read it from a browser unless a key says which (`Access-Control-Allow-Origin`
//! only then). And no viewer shuts out the others: connections are limited in number and per
//! address (an IPv6 /64 is one address), a request's head must arrive within
//! [`HEAD_TIMEOUT`], a write that waits more than [`WRITE_TIMEOUT`] (a viewer who does not read)
//! ends the connection, and an event stream ends after [`STREAM_LIFETIME`] (a browser comes back
//! by itself a second later, and is sent everything again).

use std::{
    collections::HashMap,
    net::{IpAddr, Ipv6Addr},
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::{Semaphore, watch},
    time::Instant,
};
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use super::view::{ClocksView, Made};
pub use crate::config::{
    Access, HEAD_TIMEOUT, MAX_CONNECTIONS, MAX_PER_ADDRESS, STREAM_LIFETIME, WRITE_TIMEOUT,
    limits_words, own_name,
};

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

/// The page's rule on `Host` (here, with the server that keeps it).
impl Access {
    /// Whether a request for `host` (its `Host` header, the port left on) that came to the
    /// address `local` is for a name this page serves.
    pub fn serves(&self, host: &str, local: Option<IpAddr>) -> bool {
        let name = host_name(host);
        if name.is_empty() {
            return false;
        }
        if let Ok(ip) = name.parse::<IpAddr>() {
            let ip = ip.to_canonical();
            return ip.is_loopback() || local.is_some_and(|l| l.to_canonical() == ip);
        }
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        if name == "localhost" || name.ends_with(".localhost") {
            return true;
        }
        if let Some(own) = own_name()
            && (name == own || name == format!("{own}.local"))
        {
            return true;
        }
        self.names
            .iter()
            .any(|n| n.trim_end_matches('.').eq_ignore_ascii_case(&name))
    }
}

/// The host of a `Host` header: `name`, `1.2.3.4` or `::1` without its port and brackets.
fn host_name(host: &str) -> &str {
    let host = host.trim();
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    host.split(':').next().unwrap_or("")
}

/// The key an address is counted under: itself, or its /64 for IPv6 (one machine commonly has a
/// whole /64).
fn address_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let mut seg = v6.segments();
            seg[4..].fill(0);
            IpAddr::V6(Ipv6Addr::from(seg))
        }
        v4 => v4,
    }
}

/// Connections open per address.
#[derive(Default)]
struct PerAddress(Mutex<HashMap<IpAddr, usize>>);

/// A place of one address, given back when dropped.
struct AddressPlace {
    table: Arc<PerAddress>,
    key: IpAddr,
}

impl PerAddress {
    fn take(self: &Arc<Self>, ip: IpAddr) -> Option<AddressPlace> {
        let key = address_key(ip);
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(key).or_insert(0);
        if *n >= MAX_PER_ADDRESS {
            return None;
        }
        *n += 1;
        Some(AddressPlace {
            table: self.clone(),
            key,
        })
    }
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        let mut map = self.table.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.key);
            }
        }
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

/// Serve `listener` until `cancel`, answering each request's path with `route`, to the names
/// and origins `access` allows.
pub async fn serve<R>(listener: TcpListener, route: R, access: Access, cancel: CancellationToken)
where
    R: Fn(&str) -> Response + Send + Sync + 'static,
{
    let route = Arc::new(route);
    let access = Arc::new(access);
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let per_address = Arc::new(PerAddress::default());
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
        // One address over its share is closed at once: no write to wait on, no place held.
        let Some(place) = per_address.take(peer.ip()) else {
            debug!(%peer, "web: too many connections from this address");
            drop(stream);
            continue;
        };
        let permit = permits.clone().try_acquire_owned().ok();
        let route = route.clone();
        let access = access.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let _place = place;
            let result = match permit {
                Some(_permit) => connection(stream, &*route, &access, &cancel).await,
                None => timed(busy(&mut { stream })).await,
            };
            if let Err(e) = result {
                debug!(%peer, "web connection ended: {e}");
            }
        });
    }
}

/// `io` within [`WRITE_TIMEOUT`]: a viewer who does not read is let go.
async fn timed<T>(io: impl Future<Output = std::io::Result<T>>) -> std::io::Result<T> {
    tokio::time::timeout(WRITE_TIMEOUT, io)
        .await
        .unwrap_or_else(|_| {
            Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the viewer does not read",
            ))
        })
}

async fn busy(stream: &mut TcpStream) -> std::io::Result<()> {
    plain(stream, 503, "too many viewers; try again shortly\n", None).await
}

/// A short plain-text answer, then the connection ends.
async fn plain(
    stream: &mut TcpStream,
    status: u16,
    body: &str,
    allow_origin: Option<&str>,
) -> std::io::Result<()> {
    write_head(
        stream,
        status,
        "text/plain; charset=utf-8",
        Some(body.len()),
        allow_origin,
    )
    .await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

/// One request: read its head, answer it.
async fn connection(
    mut stream: TcpStream,
    route: &(dyn Fn(&str) -> Response + Send + Sync),
    access: &Access,
    cancel: &CancellationToken,
) -> std::io::Result<()> {
    let head = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream)).await {
        Ok(head) => head?,
        Err(_) => return Ok(()),
    };
    let mut lines = head.lines();
    let mut words = lines.next().unwrap_or("").split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let path = target.split(['?', '#']).next().unwrap_or("");
    let host = lines
        .take_while(|l| !l.is_empty())
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("host")
                .then(|| value.trim())
        })
        .unwrap_or("");
    let origin = access.allow_origin.as_deref();
    let local = stream.local_addr().ok().map(|a| a.ip());
    if !access.serves(host, local) {
        // A name this page does not serve: a web page elsewhere reaching it by DNS rebinding,
        // say. It is told nothing of the table.
        debug!(host, "web: a request for a name this page does not serve");
        return timed(plain(
            &mut stream,
            421,
            "this page does not answer to that host name; use its address, localhost, this \
             computer's name or a name in [web] names\n",
            None,
        ))
        .await;
    }
    if method != "GET" && method != "HEAD" {
        return timed(plain(&mut stream, 405, "read-only: only GET\n", origin)).await;
    }
    match route(path) {
        Response::Full {
            status,
            content_type,
            body,
        } => {
            timed(async {
                write_head(&mut stream, status, content_type, Some(body.len()), origin).await?;
                if method == "GET" {
                    stream.write_all(body.as_bytes()).await?;
                }
                stream.shutdown().await
            })
            .await
        }
        Response::Events(mut events) => {
            timed(write_head(
                &mut stream,
                200,
                "text/event-stream",
                None,
                origin,
            ))
            .await?;
            if method == "HEAD" {
                return Ok(());
            }
            timed(stream.write_all(b"retry: 1000\n\n")).await?;
            let end = tokio::time::sleep(STREAM_LIFETIME);
            tokio::pin!(end);
            let mut sent = Vec::new();
            loop {
                let update = events.borrow_and_update().clone();
                if let Some(data) = update.changes(&mut sent, Instant::now()) {
                    timed(stream.write_all(format!("data: {data}\n\n").as_bytes())).await?;
                }
                loop {
                    tokio::select! {
                        _ = cancel.cancelled() => return Ok(()),
                        // The browser comes back by itself and is sent everything again.
                        _ = &mut end => return timed(stream.shutdown()).await,
                        changed = events.changed() => {
                            if changed.is_err() {
                                return Ok(());
                            }
                            break;
                        }
                        _ = tokio::time::sleep(KEEP_ALIVE) => {
                            timed(stream.write_all(b": still here\n\n")).await?;
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
    allow_origin: Option<&str>,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        421 => "Misdirected Request",
        503 => "Service Unavailable",
        _ => "",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\n"
    );
    if let Some(origin) = allow_origin {
        head.push_str(&format!("Access-Control-Allow-Origin: {origin}\r\n"));
    }
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
    fn a_page_answers_its_own_names_only() {
        let access = Access {
            names: vec!["hall.example.lan".into()],
            allow_origin: None,
        };
        let local: Option<IpAddr> = Some("192.168.1.5".parse().unwrap());
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "192.168.1.5:8080",
            "HALL.example.lan",
            "hall.example.lan.:8090",
        ] {
            assert!(access.serves(host, local), "{host}");
        }
        for host in [
            "",
            "evil.example",
            "192.168.1.6:8080",
            "hall.example.lan.evil.example",
            "localhost.evil.example",
        ] {
            assert!(!access.serves(host, local), "{host}");
        }
        if let Some(own) = own_name() {
            assert!(access.serves(&format!("{own}:8080"), local));
            assert!(access.serves(&format!("{own}.local"), local));
            assert!(!access.serves(&format!("{own}.evil.example"), local));
        }
    }

    #[test]
    fn an_address_has_its_share_of_places_and_an_ipv6_64_is_one_address() {
        let places = Arc::new(PerAddress::default());
        let a: IpAddr = "2001:db8::1".parse().unwrap();
        let b: IpAddr = "2001:db8::ffff:2".parse().unwrap();
        let held: Vec<AddressPlace> = (0..MAX_PER_ADDRESS)
            .map(|i| places.take(if i % 2 == 0 { a } else { b }).unwrap())
            .collect();
        assert!(places.take(a).is_none(), "the /64 has used its share");
        assert!(places.take("2001:db8:0:1::1".parse().unwrap()).is_some());
        assert!(places.take("::ffff:10.0.0.1".parse().unwrap()).is_some());
        drop(held);
        assert!(places.take(a).is_some(), "given back when dropped");
    }

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
