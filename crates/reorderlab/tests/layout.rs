//! The shape the sender and the simulation keep (issue 22): no file in
//! `src/tcp/` or `src/sim/` over 600 lines, no function there over 80, so
//! that a newcomer can read each in one sitting.

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 600;
const MAX_FN_LINES: usize = 80;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `fn` items and their length in lines, by brace matching (good enough for
/// this code: no braces in the strings or comments of a signature line).
fn long_functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let Some(rest) = ["fn ", "pub fn ", "pub(super) fn ", "pub(crate) fn "]
            .iter()
            .find_map(|p| t.strip_prefix(p))
        else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut started) = (0i64, false);
        for (j, l) in lines[i..].iter().enumerate() {
            depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
            started |= l.contains('{');
            if started && depth <= 0 {
                if j + 1 > MAX_FN_LINES {
                    found.push((name.clone(), j + 1));
                }
                break;
            }
        }
    }
    found
}

#[test]
fn tcp_and_sim_files_and_functions_stay_short() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for dir in ["tcp", "sim"] {
        rust_files(&src.join(dir), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let n = text.lines().count();
        if n > MAX_FILE_LINES {
            bad.push(format!("{}: {n} lines", f.display()));
        }
        for (name, len) in long_functions(&text) {
            bad.push(format!("{}: fn {name} is {len} lines", f.display()));
        }
    }
    assert!(bad.is_empty(), "too long:\n{}", bad.join("\n"));
}

#[test]
fn the_length_check_sees_a_long_function() {
    let body = "    x += 1;\n".repeat(MAX_FN_LINES);
    let text = format!("fn short() {{\n}}\n\npub fn long() {{\n{body}}}\n");
    assert_eq!(
        long_functions(&text),
        vec![("long".to_string(), MAX_FN_LINES + 2)]
    );
}
