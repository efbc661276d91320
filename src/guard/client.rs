//! The client address of a request, as every per-address limit and the access log
//! count it.
//!
//! The shim's outermost layer decides it once per request (the TCP peer, or behind a
//! `--trusted-proxy` the address the proxies forwarded: `crate::shim::proxy`) and puts
//! it in the request's extensions as [`ClientAddr`]; [`Client`] reads it back, falling
//! back on the peer when that layer did not run, and is `None` for requests made
//! in-process (tests), which have neither.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

pub use crate::limits::ClientAddr;

/// The client address of a request (an extractor: `client: Client` in a handler's
/// arguments, or [`Client::of`] on the request's parts). Reading it touches only the
/// request's extensions: no header is parsed and nothing is allocated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Client(Option<IpAddr>);

impl Client {
    /// The address the shim found, else the peer; IPv4-mapped IPv6 as IPv4.
    pub fn of(parts: &Parts) -> Client {
        let found = parts.extensions.get::<ClientAddr>().map(|c| c.0);
        let address = found.or_else(|| {
            let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>();
            peer.map(|c| c.0.ip())
        });
        Client(address.map(canonical))
    }

    /// The address; `None` for an in-process request.
    pub fn address(self) -> Option<IpAddr> {
        self.0
    }
}

impl<S: Sync> FromRequestParts<S> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Client, Infallible> {
        Ok(Client::of(parts))
    }
}

/// IPv4-mapped IPv6 (`::ffff:192.0.2.1`, a dual-stack listener's peers) as IPv4, so
/// one client is one subject whichever way it connected.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn parts() -> Parts {
        Request::new(()).into_parts().0
    }

    #[test]
    fn the_forwarded_address_wins_over_the_peer() {
        let mut p = parts();
        assert_eq!(Client::of(&p).address(), None, "in-process: no address");
        let peer: SocketAddr = "[::ffff:10.0.0.1]:4000".parse().unwrap();
        p.extensions.insert(ConnectInfo(peer));
        assert_eq!(
            Client::of(&p).address(),
            Some("10.0.0.1".parse().unwrap()),
            "the peer, IPv4-mapped as IPv4"
        );
        p.extensions
            .insert(ClientAddr("203.0.113.9".parse().unwrap()));
        assert_eq!(
            Client::of(&p).address(),
            Some("203.0.113.9".parse().unwrap())
        );
    }
}
