//! The client address behind trusted proxies (`--trusted-proxy CIDR`).
//!
//! The TCP peer is the client unless it is a trusted proxy (a load balancer, a CDN's
//! edge, nginx on the same host). Only then are the forwarding headers read: the
//! `for=` parameters of `Forwarded` (RFC 7239) when the request has one, else the
//! addresses of `X-Forwarded-For`, every header of that name in order. The list is
//! walked from the right (the hop nearest to the shim) past the addresses that are
//! themselves trusted proxies; the first other address is the client. A client can
//! therefore put anything at the left of the list, and it is ignored: only what the
//! trusted proxies appended counts. When a trusted proxy appended something that is
//! not an address (`unknown`, an obfuscated name, garbage), the client is the nearest
//! trusted hop that reported it, not a value the client chose; when every hop is
//! trusted, the leftmost one.
//!
//! The headers are parsed with `forwarded-header-value`; the ranges are `ipnet`'s.
//! (`axum-client-ip` takes the rightmost value only, which is right for exactly one
//! proxy but not for a chain.)

use std::net::{IpAddr, SocketAddr};

use anyhow::bail;
use axum::http::HeaderMap;
use forwarded_header_value::{ForwardedHeaderValue, Identifier};
use ipnet::IpNet;

use crate::guard::client::canonical;
/// The client address of a request, as [`TrustedProxies::client`] found it; put in
/// the request's extensions by the shim's outermost layer, read back by every
/// endpoint as [`crate::guard::Client`].
pub use crate::guard::client::ClientAddr;

/// The configured ranges of trusted proxies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Ranges in CIDR notation (`10.0.0.0/8`, `::1/128`) or single addresses.
    pub fn parse<S: AsRef<str>>(ranges: &[S]) -> anyhow::Result<TrustedProxies> {
        let mut nets = Vec::new();
        for raw in ranges {
            let raw = raw.as_ref().trim();
            if raw.is_empty() {
                continue;
            }
            let net = match (raw.parse::<IpNet>(), raw.parse::<IpAddr>()) {
                (Ok(net), _) => net,
                (_, Ok(ip)) => IpNet::from(ip),
                _ => bail!(
                    "--trusted-proxy {raw}: not an address range (expected CIDR such as \
                     10.0.0.0/8 or 127.0.0.1/32, or a single address)"
                ),
            };
            nets.push(net.trunc());
        }
        Ok(TrustedProxies(nets))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn ranges(&self) -> &[IpNet] {
        &self.0
    }

    /// Whether `ip` is a trusted proxy (an IPv4-mapped IPv6 peer counts as IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client address of a request from `peer` with `headers`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.contains(peer) {
            return peer;
        }
        let hops = forwarded_hops(headers).unwrap_or_else(|| x_forwarded_for_hops(headers));
        let mut nearest = peer;
        for hop in hops.into_iter().rev() {
            match hop {
                Some(ip) if self.contains(ip) => nearest = ip,
                Some(ip) => return ip,
                None => return nearest,
            }
        }
        nearest
    }
}

/// The `for=` of every `Forwarded` element, leftmost first; `None` without the header.
/// An element without a usable address (or an unparsable header) is a `None` hop.
fn forwarded_hops(headers: &HeaderMap) -> Option<Vec<Option<IpAddr>>> {
    let values: Vec<_> = headers.get_all("forwarded").iter().collect();
    if values.is_empty() {
        return None;
    }
    let mut hops = Vec::new();
    for value in values {
        let parsed = value
            .to_str()
            .ok()
            .and_then(|v| ForwardedHeaderValue::from_forwarded(v).ok());
        match parsed {
            Some(parsed) => {
                hops.extend(parsed.into_iter().map(|stanza| match stanza.forwarded_for {
                    Some(Identifier::IpAddr(ip)) => Some(canonical(ip)),
                    Some(Identifier::SocketAddr(a)) => Some(canonical(a.ip())),
                    _ => None,
                }))
            }
            None => hops.push(None),
        }
    }
    Some(hops)
}

/// Every address of every `X-Forwarded-For` header, leftmost first.
fn x_forwarded_for_hops(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let mut hops = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        let Ok(value) = value.to_str() else {
            hops.push(None);
            continue;
        };
        for item in value.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let ip = item
                .parse::<IpAddr>()
                .ok()
                .or_else(|| item.parse::<SocketAddr>().ok().map(|a| a.ip()));
            hops.push(ip.map(canonical));
        }
    }
    hops
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::guard::test_headers as headers;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ranges_parse_and_bad_ones_are_named() {
        let t = TrustedProxies::parse(&["127.0.0.1/32", "10.0.0.0/8", "::1", " "]).unwrap();
        assert_eq!(t.ranges().len(), 3);
        assert!(t.contains(ip("10.9.8.7")));
        assert!(t.contains(ip("::ffff:127.0.0.1")));
        assert!(!t.contains(ip("11.0.0.1")));
        let err = TrustedProxies::parse(&["10.0.0.0/33"]).unwrap_err();
        assert!(
            err.to_string().contains("--trusted-proxy 10.0.0.0/33"),
            "{err}"
        );
        assert!(TrustedProxies::parse(&["nginx"]).is_err());
    }

    #[test]
    fn an_untrusted_peer_cannot_choose_its_address() {
        let t = TrustedProxies::parse(&["127.0.0.1/32"]).unwrap();
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.9"),
            ("forwarded", "for=203.0.113.8"),
        ]);
        assert_eq!(t.client(ip("198.51.100.1"), &h), ip("198.51.100.1"));
        let none = TrustedProxies::default();
        assert_eq!(none.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
    }

    #[test]
    fn a_trusted_peer_is_believed_from_the_right() {
        let t = TrustedProxies::parse(&["127.0.0.1/32", "10.0.0.0/8"]).unwrap();
        let peer = ip("127.0.0.1");
        // The client put a fake address first; nginx appended the real one.
        let h = headers(&[("x-forwarded-for", "1.1.1.1, 203.0.113.9")]);
        assert_eq!(t.client(peer, &h), ip("203.0.113.9"));
        // A chain of trusted proxies is walked past.
        let h = headers(&[
            ("x-forwarded-for", "1.1.1.1, 203.0.113.9, 10.0.0.5"),
            ("x-forwarded-for", "10.0.0.6"),
        ]);
        assert_eq!(t.client(peer, &h), ip("203.0.113.9"));
        // Forwarded wins over X-Forwarded-For, with ports and IPv6.
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.9"),
            (
                "forwarded",
                "for=1.1.1.1, for=\"[2001:db8::7]:4711\";proto=https, for=10.0.0.5",
            ),
        ]);
        assert_eq!(t.client(peer, &h), ip("2001:db8::7"));
        // No header: the proxy itself.
        assert_eq!(t.client(peer, &HeaderMap::new()), peer);
        // Everything trusted: the leftmost.
        let h = headers(&[("x-forwarded-for", "10.0.0.1, 10.0.0.2")]);
        assert_eq!(t.client(peer, &h), ip("10.0.0.1"));
        // Garbage appended by a trusted hop: that hop, never what is left of it.
        let h = headers(&[("x-forwarded-for", "203.0.113.9, unknown, 10.0.0.3")]);
        assert_eq!(t.client(peer, &h), ip("10.0.0.3"));
        let h = headers(&[("forwarded", "for=unknown")]);
        assert_eq!(t.client(peer, &h), peer);
        let h = headers(&[("x-forwarded-for", "203.0.113.9:5555")]);
        assert_eq!(t.client(peer, &h), ip("203.0.113.9"));
    }
}
