//! A fabric's cables changing during a run (`topology.events`): down, back
//! up, or a fraction of their rate. Each change is one event at its time;
//! [`LinkChange::apply`] sets both directions of the cable.
//!
//! Down: from that instant the switches route around the cable (the
//! fabric's usable uplinks, `net/fattree.rs`: an ECMP switch re-divides its
//! key space among the uplinks left, RFC 2992 Sec. 4; spraying, round
//! robin, flowlets and the adaptive choice spread over them), at once, as
//! if routing converged instantly. A packet already accepted by the link
//! (queued or on the wire) still arrives; one routed to a link that is
//! down where there is no other way (a host's cable, or the one path down
//! the tree) is dropped. A rate change applies to the packets accepted
//! from then on.

use crate::engine::time::secs;
use crate::engine::Time;
use crate::net::fattree::Fabric;
use crate::net::link::Link;
use crate::spec::{LinkAction, LinkEvent};

/// One change, resolved to link ids.
#[derive(Debug, Clone)]
pub struct LinkChange {
    pub at: Time,
    /// Both directions of the cable.
    links: [u32; 2],
    action: LinkAction,
    factor: f64,
    /// The directions' rates as built.
    nominal: [f64; 2],
}

impl LinkChange {
    /// `index(name)`: a link's id; `links`: as built (their nominal rates).
    pub fn resolve(
        e: &LinkEvent,
        index: impl Fn(&str) -> u32,
        cables: u32,
        links: &[Link],
    ) -> LinkChange {
        let l = index(&e.link);
        let other = (l + cables) % (2 * cables);
        LinkChange {
            at: secs(e.at),
            links: [l, other],
            action: e.action,
            factor: e.factor.unwrap_or(1.0),
            nominal: [links[l as usize].rate, links[other as usize].rate],
        }
    }

    /// Set the cable's state in the fabric and its directions' rates.
    pub fn apply(&self, fabric: &mut Fabric, links: &mut [Link]) {
        let rate = |k: usize| match self.action {
            LinkAction::Rate => self.nominal[k] * self.factor,
            LinkAction::Up | LinkAction::Down => self.nominal[k],
        };
        match self.action {
            LinkAction::Down => fabric.set_cable(self.links[0], false),
            LinkAction::Up => fabric.set_cable(self.links[0], true),
            LinkAction::Rate => {}
        }
        if self.action != LinkAction::Down {
            for k in 0..2 {
                links[self.links[k] as usize].set_rate(rate(k));
            }
        }
    }
}
