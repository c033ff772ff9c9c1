//! `cargo run --example run_json -- scenario.json [seed]`: run a JSON
//! scenario and print the result JSON (for debugging without Python).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable scenario file");
    let seed = args.get(2).map(|s| s.parse().expect("integer seed"));
    match reorderlab::run_json(&text, seed) {
        Ok(out) => println!("{out}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
