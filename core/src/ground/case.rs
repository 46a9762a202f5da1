//! Lower case for finding ASCII words and making ASCII ids, without Unicode's case tables
//! (about 23 KB of the console's build).

/// `text` lower-cased, with the ASCII characters Unicode's lower case gives: outside ASCII
/// only the Kelvin sign (to `k`) and `İ` (to `i` and a combining dot) lower-case into ASCII,
/// so every other character is kept as it is (it stays outside ASCII either way). An ASCII
/// word is found in the result wherever it is found in `text.to_lowercase()`.
pub fn lower_for_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{212A}' => out.push('k'),
            '\u{0130}' => out.push_str("i\u{307}"),
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_two_characters_that_fold_into_ascii_fold_as_unicode_folds_them() {
        assert_eq!(lower_for_ascii("API \u{212A}EY, İD, Ünïcode"), "api key, i\u{307}d, Ünïcode");
    }

    /// For every character, both lower cases give the same ASCII characters, and a run of
    /// others (which no ASCII word or id can match into) where the other gives one.
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn ascii_is_found_as_unicode_lower_case_finds_it() {
        let shape = |s: &str| {
            let mut out = String::new();
            for c in s.chars() {
                if c.is_ascii() {
                    out.push(c);
                } else if !out.ends_with('\u{FFFD}') {
                    out.push('\u{FFFD}');
                }
            }
            out
        };
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let ours = lower_for_ascii(c.encode_utf8(&mut [0; 4]));
            let unicode: String = c.to_lowercase().collect();
            assert_eq!(shape(&ours), shape(&unicode), "U+{:04X}: {ours:?} against {unicode:?}", c as u32);
        }
    }
}
