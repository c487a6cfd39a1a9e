//! Viewers from addresses of their own: a connection to this computer's loopback made from any
//! address of 127/8 (all of it is loopback on Linux), so that a test can stand a crowd on one
//! address and its viewers on others (the page limits connections per address).

use std::net::{Ipv4Addr, SocketAddr, TcpStream};

/// A connection to 127.0.0.1:`port` from the local address `from`, blocking; `None` when it
/// cannot be made.
pub fn connect_from(from: Ipv4Addr, port: u16) -> Option<TcpStream> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .ok()?;
    let stream = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().ok()?;
        socket.bind(SocketAddr::from((from, 0))).ok()?;
        socket
            .connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
            .await
            .ok()
    })?;
    let stream = stream.into_std().ok()?;
    stream.set_nonblocking(false).ok()?;
    Some(stream)
}

/// Raise this process's open-file limit to its hard limit: a crowd of connections holds a
/// descriptor each.
pub fn many_files() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}
