//! Records how the core is being compiled, for `reorderlab bench` to say
//! which build its numbers come from: "profile-guided" (-Cprofile-use, the
//! final build of scripts/build-core.sh), "instrumented" (-Cprofile-generate,
//! its training build) or "plain".

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    // A flag may come as one argument (-Cprofile-use=P) or two (-C profile-use=P).
    let has = |name: &str| {
        flags
            .split('\x1f')
            .any(|f| f.trim_start_matches("-C").starts_with(name))
    };
    let kind = if has("profile-use") {
        "profile-guided"
    } else if has("profile-generate") {
        "instrumented"
    } else {
        "plain"
    };
    println!("cargo:rustc-env=REORDERLAB_BUILD_KIND={kind}");
}
