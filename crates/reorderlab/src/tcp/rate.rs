//! Delivery-rate estimation, as Linux's `net/ipv4/tcp_rate.c` and
//! draft-cheng-iccrg-delivery-rate-estimation: a rate sample per ACK, the
//! segments delivered over the interval between a segment's transmission
//! and its acknowledgment, that interval being the longer of the send phase
//! and the ACK phase (ACK compression cannot inflate the estimate).
//!
//! Per transmission a segment records the connection's delivery state
//! (`tcp_rate_skb_sent`): `delivered`, the time of the latest delivery,
//! the first send time of the current flight and whether the flow was
//! application-limited. Per delivered segment the record of the most
//! recently sent one is kept (`tcp_rate_skb_delivered`); once per ACK the
//! sample is formed (`tcp_rate_gen`). The sample also carries the ACK's
//! RTT for a controller (`rs->rtt_us`: from the most recently sent segment
//! the ACK newly delivered that was never retransmitted, SACKed ones
//! preferred, as `tcp_clean_rtx_queue` computes `ca_rtt_us`) and the
//! segments newly marked lost (`rs->losses`).
//!
//! A flow keeps one [`DeliveryRate`] only if its congestion control reads
//! it (BBR): the records live here, in a ring indexed by segment number,
//! not in the scoreboard, so other flows pay nothing.

use std::collections::VecDeque;

use crate::engine::time::NS_PER_SEC;
use crate::engine::Time;
use crate::tcp::minmax::{Extreme, WindowedExtreme};

/// `sysctl_tcp_min_rtt_wlen`: the window of `tcp_min_rtt`, 300 s.
pub const MIN_RTT_WINDOW: Time = 300 * NS_PER_SEC;

/// The delivery state recorded with a transmission (`tcp_skb_cb->tx`).
#[derive(Debug, Clone, Copy, Default)]
struct TxRecord {
    /// `tx.delivered`: segments delivered when it was sent.
    delivered: u64,
    /// `tx.delivered_mstamp`: time of the latest delivery then.
    delivered_at: Time,
    /// `tx.first_tx_mstamp`: send time of the first segment of that flight.
    first_tx_at: Time,
    /// `tx.is_app_limited`.
    app_limited: bool,
    /// The record still counts (Linux zeroes `delivered_mstamp` once the
    /// segment is SACKed, so its cumulative ACK does not count it again).
    live: bool,
}

/// One ACK's rate sample (`struct rate_sample`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RateSample {
    /// `prior_delivered` / `prior_mstamp`: the delivery state when the most
    /// recently sent of the delivered segments left; `has_prior` as
    /// `prior_mstamp != 0`.
    pub prior_delivered: u64,
    pub prior_at: Time,
    pub has_prior: bool,
    /// Segments delivered over the interval (`rs->delivered`); `None`: no
    /// valid sample on this ACK.
    pub delivered: Option<u64>,
    /// The interval (`rs->interval_us`); `None` for an invalid sample.
    pub interval: Option<Time>,
    /// Send and ACK phases (`snd_interval_us`, `rcv_interval_us`).
    pub snd_interval: Time,
    pub rcv_interval: Time,
    /// Segments newly ACKed or SACKed (`rs->acked_sacked`).
    pub acked_sacked: u32,
    /// Segments newly marked lost (`rs->losses`).
    pub losses: u32,
    /// Segments in flight before the ACK (`rs->prior_in_flight`).
    pub prior_in_flight: u32,
    /// `rs->is_app_limited`, `rs->is_retrans`.
    pub is_app_limited: bool,
    pub is_retrans: bool,
    /// `rs->rtt_us`: this ACK's RTT sample for the controller.
    pub rtt: Option<Time>,
}

impl RateSample {
    /// The sample's bandwidth in segments per second, if valid.
    pub fn bw(&self) -> Option<f64> {
        let (d, i) = (self.delivered?, self.interval?);
        (i > 0).then(|| d as f64 * NS_PER_SEC as f64 / i as f64)
    }
}

/// A flow's delivery-rate estimator (the `tcp_sock` fields of tcp_rate.c).
#[derive(Debug, Clone)]
pub struct DeliveryRate {
    /// `tp->delivered`: segments delivered (ACKed or SACKed) so far.
    pub delivered: u64,
    /// `tp->delivered_mstamp`: time of the latest delivery.
    pub delivered_at: Time,
    /// `tp->first_tx_mstamp`: send time of the latest delivered segment
    /// (the start of the current send phase).
    first_tx_at: Time,
    /// `tp->app_limited`: 0, or the `delivered` count after which the
    /// application-limited bubble has been delivered.
    pub app_limited: u64,
    /// `tp->lost`: segments marked lost so far.
    pub lost: u64,
    /// `tcp_min_rtt`: the least RTT sample over [`MIN_RTT_WINDOW`].
    min_rtt: Option<WindowedExtreme>,
    /// Records of the outstanding transmissions, from segment `base` on.
    tx: VecDeque<TxRecord>,
    base: u32,
    /// The sample being built for the current ACK.
    pub rs: RateSample,
    /// The send times that give this ACK's RTT: the most recently sent
    /// newly cumulatively ACKed and newly SACKed never-retransmitted
    /// segments (`last_ackt`, `last_sackt`), and whether a retransmitted
    /// one was cumulatively ACKed (`FLAG_RETRANS_DATA_ACKED`).
    last_ackt: Option<Time>,
    last_sackt: Option<Time>,
    retrans_acked: bool,
    /// The last non-application-limited (or highest) rate, for
    /// `tcpi_delivery_rate`: `rate_delivered` / `rate_interval_us`.
    rate_delivered: u64,
    rate_interval: Time,
    pub rate_app_limited: bool,
}

impl Default for DeliveryRate {
    fn default() -> DeliveryRate {
        DeliveryRate::new()
    }
}

impl DeliveryRate {
    pub fn new() -> DeliveryRate {
        DeliveryRate {
            delivered: 0,
            delivered_at: 0,
            first_tx_at: 0,
            app_limited: 0,
            lost: 0,
            min_rtt: None,
            tx: VecDeque::new(),
            base: 0,
            rs: RateSample::default(),
            last_ackt: None,
            last_sackt: None,
            retrans_acked: false,
            rate_delivered: 0,
            rate_interval: 0,
            rate_app_limited: false,
        }
    }

    /// `tcp_min_rtt`, if any sample was taken.
    #[inline]
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt.map(|m| m.get())
    }

    /// `tcp_update_rtt_min`: an RTT sample into the 300 s minimum.
    pub fn on_rtt_sample(&mut self, rtt: Time, now: Time) {
        match self.min_rtt.as_mut() {
            Some(m) => {
                m.update(MIN_RTT_WINDOW, now, rtt);
            }
            None => self.min_rtt = Some(WindowedExtreme::new(Extreme::Min, now, rtt)),
        }
    }

    /// `tcp_rate_skb_sent`: segment `seq` leaves at `now`, with
    /// `packets_out` segments outstanding before it (Linux reads
    /// `packets_out`, not the in-flight estimate: spurious loss marks must
    /// not shorten the interval). With nothing outstanding the send and
    /// delivery clocks restart now.
    pub fn on_sent(&mut self, seq: u32, now: Time, packets_out: u32) {
        if packets_out == 0 {
            self.first_tx_at = now;
            self.delivered_at = now;
        }
        let rec = TxRecord {
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_tx_at: self.first_tx_at,
            app_limited: self.app_limited != 0,
            live: true,
        };
        if self.tx.is_empty() {
            self.base = seq;
        }
        if seq < self.base {
            return;
        }
        let i = (seq - self.base) as usize;
        // A new segment is the next record; a retransmission overwrites its
        // own; a gap (a segment sent while others were never recorded) is
        // filled with dead records.
        if i == self.tx.len() {
            self.tx.push_back(rec);
            return;
        }
        if i > self.tx.len() {
            self.tx.resize(i + 1, TxRecord::default());
        }
        self.tx[i] = rec;
    }

    /// Forget the records below `una` (cumulatively acknowledged).
    pub fn release_below(&mut self, una: u32) {
        let n = (una.saturating_sub(self.base) as usize).min(self.tx.len());
        self.tx.drain(..n);
        self.base += n as u32;
        if self.tx.is_empty() {
            self.base = una;
        }
    }

    /// A new ACK: an empty sample, `prior_in_flight` segments in flight
    /// before it.
    pub fn begin_ack(&mut self, prior_in_flight: u32) {
        self.rs = RateSample {
            prior_in_flight,
            ..RateSample::default()
        };
        self.last_ackt = None;
        self.last_sackt = None;
        self.retrans_acked = false;
    }

    /// `tcp_rate_skb_delivered`: segment `seq`, last sent at `sent_at`
    /// (`retransmitted`: ever sent twice, `TCPCB_RETRANS`), was newly
    /// delivered, by a SACK block (`sacked`) or cumulatively. The sample
    /// keeps the record of the most recently sent delivered segment (the
    /// highest `delivered` at its send).
    pub fn on_delivered(&mut self, seq: u32, sent_at: Time, retransmitted: bool, sacked: bool) {
        self.note_ca_rtt(sent_at, retransmitted, sacked);
        let Some(rec) = seq
            .checked_sub(self.base)
            .and_then(|i| self.tx.get_mut(i as usize))
        else {
            return;
        };
        if !rec.live {
            return;
        }
        let rs = &mut self.rs;
        if rs.prior_delivered == 0 || rec.delivered > rs.prior_delivered {
            rs.prior_delivered = rec.delivered;
            rs.prior_at = rec.delivered_at;
            rs.has_prior = true;
            rs.is_app_limited = rec.app_limited;
            rs.is_retrans = retransmitted;
            self.first_tx_at = sent_at;
            rs.interval = Some(sent_at.saturating_sub(rec.first_tx_at));
        }
        if sacked {
            rec.live = false;
        }
    }

    /// `tcp_clean_rtx_queue` / `tcp_sacktag_one`: the send times the ACK's
    /// `ca_rtt_us` is taken from.
    fn note_ca_rtt(&mut self, sent_at: Time, retransmitted: bool, sacked: bool) {
        match (retransmitted, sacked) {
            (false, true) => self.last_sackt = Some(sent_at),
            (false, false) => self.last_ackt = Some(sent_at),
            (true, false) => self.retrans_acked = true,
            (true, true) => {}
        }
    }

    /// `tcp_rate_gen`: the ACK delivered `delivered` segments and marked
    /// `lost` newly lost; form its sample. `min_rtt` is `tcp_min_rtt`
    /// after this ACK's RTT sample (a sample shorter than it is invalid).
    pub fn finish_ack(&mut self, now: Time, delivered: u32, lost: u32) -> &RateSample {
        self.delivered += delivered as u64;
        self.lost += lost as u64;
        self.rs.rtt = self.ca_rtt(now);
        if let Some(rtt) = self.rs.rtt {
            self.on_rtt_sample(rtt, now);
        }
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if delivered > 0 {
            self.delivered_at = now;
        }
        let rs = &mut self.rs;
        rs.acked_sacked = delivered;
        rs.losses = lost;
        if !rs.has_prior {
            rs.delivered = None;
            rs.interval = None;
            return &self.rs;
        }
        rs.delivered = Some(self.delivered - rs.prior_delivered);
        let snd = rs.interval.unwrap_or(0);
        let ack = now.saturating_sub(rs.prior_at);
        rs.snd_interval = snd;
        rs.rcv_interval = ack;
        let interval = snd.max(ack);
        if self.min_rtt.is_some_and(|m| interval < m.get()) {
            rs.interval = None;
            return &self.rs;
        }
        rs.interval = Some(interval);
        let d = rs.delivered.unwrap_or(0);
        let higher = d as u128 * self.rate_interval as u128
            >= self.rate_delivered as u128 * interval as u128;
        if !rs.is_app_limited || higher {
            self.rate_delivered = d;
            self.rate_interval = interval;
            self.rate_app_limited = rs.is_app_limited;
        }
        &self.rs
    }

    /// `ca_rtt_us` of `tcp_clean_rtx_queue`: from the latest SACKed
    /// segment if any, else from the latest cumulatively ACKed one unless a
    /// retransmitted segment was among those (Karn).
    fn ca_rtt(&self, now: Time) -> Option<Time> {
        if let Some(t) = self.last_sackt {
            return Some(now.saturating_sub(t));
        }
        match self.last_ackt {
            Some(t) if !self.retrans_acked => Some(now.saturating_sub(t)),
            _ => None,
        }
    }

    /// `tcp_rate_check_app_limited`: the sender has nothing to send, is not
    /// limited by cwnd and has retransmitted every segment marked lost; the
    /// samples until what is in flight now is delivered are
    /// application-limited.
    pub fn check_app_limited(
        &mut self,
        nothing_to_send: bool,
        cwnd_limited: bool,
        lost_pending: bool,
        in_flight: u32,
    ) {
        if nothing_to_send && !cwnd_limited && !lost_pending {
            self.mark_app_limited(in_flight);
        }
    }

    /// `tp->app_limited = (tp->delivered + tcp_packets_in_flight(tp)) ? : 1`.
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited = (self.delivered + in_flight as u64).max(1);
    }

    /// `tcpi_delivery_rate` in segments per second (0 before any sample).
    pub fn delivery_rate(&self) -> f64 {
        if self.rate_interval == 0 {
            return 0.0;
        }
        self.rate_delivered as f64 * NS_PER_SEC as f64 / self.rate_interval as f64
    }
}

#[cfg(test)]
#[path = "rate_tests.rs"]
mod tests;
