//! A loopback port that refuses connections for as long as it is held.
//!
//! Binding `127.0.0.1:0` and closing the listener frees the port for the
//! next test that binds one: with tests running in parallel, a "dead" URL
//! then reaches some other test's live server. A socket that is bound but
//! never listens keeps the port reserved (it is bound without
//! `SO_REUSEADDR`, so nothing else can take it) and every connection to it
//! is refused.

/// A bound, never-listening TCP socket on 127.0.0.1; dropping it frees the port.
pub(crate) struct DeadPort {
    _socket: tokio::net::TcpSocket,
    /// The address that refuses connections.
    pub(crate) addr: std::net::SocketAddr,
}

impl DeadPort {
    /// Reserves a port that nothing listens on.
    pub(crate) fn new() -> Self {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket
            .bind("127.0.0.1:0".parse().expect("addr"))
            .expect("bind");
        let addr = socket.local_addr().expect("addr");
        DeadPort {
            _socket: socket,
            addr,
        }
    }
}
