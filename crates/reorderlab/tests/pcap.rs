//! Packet captures (`record.pcap`): a capture observes the run without
//! changing it, and holds every packet that passed its link end.

mod common;

use common::{chain, loss_on, sack_flow, scenario};
use reorderlab::spec::{PcapTapSpec, Position, Scenario};

fn captured_scenario() -> Scenario {
    let mut sc = scenario(20.0, chain(8e6, 0.023, 10e6, 100), vec![sack_flow(50)]);
    sc.impairments.push(loss_on("R1->R2", 0.01));
    sc.record.pcap = vec![
        PcapTapSpec {
            link: "S1->R1".into(),
            position: Position::Ingress,
        },
        PcapTapSpec {
            link: "R1->R2".into(),
            position: Position::Egress,
        },
    ];
    sc
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("reorderlab-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Records of a pcap file: (caplen, original length) of each.
fn records(path: &str) -> Vec<(u32, u32)> {
    let bytes = std::fs::read(path).unwrap();
    let mut at = 24;
    let mut out = Vec::new();
    while at < bytes.len() {
        let word = |k: usize| u32::from_le_bytes(bytes[at + k..at + k + 4].try_into().unwrap());
        out.push((word(8), word(12)));
        at += 16 + word(8) as usize;
    }
    assert_eq!(at, bytes.len(), "{path}: the last record is cut short");
    out
}

#[test]
fn a_capture_leaves_the_result_unchanged_and_holds_every_packet() {
    let sc = captured_scenario();
    let plain = serde_json::to_string(&reorderlab::run(&sc, Some(3)).unwrap()).unwrap();
    let dir = temp_dir("pcap-scenario");
    let (result, captures) = reorderlab::run_with_capture(&sc, Some(3), &dir).unwrap();
    assert_eq!(serde_json::to_string(&result).unwrap(), plain);
    let flow = &result.flows[0];
    assert!(flow.retransmits > 0);
    let sender_side = &captures[0];
    assert_eq!(sender_side.position, "ingress");
    // at the sender's end every transmission passes, and every ACK the
    // sender received (the first three records are the written handshake)
    assert_eq!(sender_side.data_packets, flow.data_packets_sent);
    assert_eq!(sender_side.acks, flow.acks_received);
    assert_eq!(sender_side.handshakes_added, 1);
    let recs = records(&sender_side.file);
    assert_eq!(recs.len() as u64, sender_side.packets);
    assert_eq!(
        sender_side.packets,
        3 + flow.data_packets_sent + flow.acks_received
    );
    let full: Vec<_> = recs.iter().filter(|(_, orig)| *orig == 1000).collect();
    assert_eq!(
        full.len() as u64,
        flow.data_packets_sent,
        "data: the 1000-byte packets"
    );
    // R2's end of the bottleneck: what the loss left, and the ACKs sent
    let r2 = &captures[1];
    let delivered = result.links.iter().find(|l| l.link == "R1->R2").unwrap();
    assert_eq!(r2.data_packets, delivered.delivered);
    assert!(r2.data_packets < sender_side.data_packets);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn taps_on_unknown_links_or_the_same_end_twice_are_refused() {
    let mut sc = captured_scenario();
    sc.record.pcap[1].link = "R9->R2".into();
    let err = sc.validate().unwrap_err();
    assert_eq!(err.path, "record.pcap[1].link");
    assert!(err.message.contains("unknown link 'R9->R2'"), "{err}");
    // R1's end of the bottleneck, named from both directions
    let mut sc = captured_scenario();
    sc.record.pcap = vec![
        PcapTapSpec {
            link: "R1->R2".into(),
            position: Position::Ingress,
        },
        PcapTapSpec {
            link: "R2->R1".into(),
            position: Position::Egress,
        },
    ];
    let err = sc.validate().unwrap_err();
    assert_eq!(err.path, "record.pcap[1]");
    assert!(err
        .message
        .contains("same end of the same link as record.pcap[0]"));
}
