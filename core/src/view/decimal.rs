//! Numbers as a console's styles, SVG paths and data attributes write them, without Rust's
//! float formatting: `f64`'s `Display` and its tables are about 14 KB of the console's wasm, and
//! a page needs only plain decimals.

/// `x` as a plain decimal, rounded to six places, trailing zeros and a bare point dropped
/// (`28`, `0.8`, `-3.25`): what `f64`'s `Display` writes for every value the views produce.
/// Not finite: `0`.
pub fn decimal(x: f64) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    // The whole part and the fraction apart: `x * 1e6` is not exact past 2^53 / 15625 (a
    // timestamp in ms is), and its error would show as digits after the point.
    let whole = x.abs().trunc();
    let mut frac = ((x.abs() - whole) * 1e6).round() as u64;
    let mut whole = whole as u64;
    if frac == 1_000_000 {
        (whole, frac) = (whole + 1, 0);
    }
    let sign = if x < 0.0 && (whole, frac) != (0, 0) { "-" } else { "" };
    if frac == 0 {
        return format!("{sign}{whole}");
    }
    let digits = format!("{frac:06}");
    format!("{sign}{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::decimal;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_views_numbers_read_as_display_writes_them() {
        // Pixel offsets, the graph's zoom steps (×1.25 from 1, clamped to 0.25..1.5), half slots.
        for x in
            [0.0, 28.0, 1344.0, -16.0, 0.8, 0.64, 0.512, 0.4096, 0.32768, 0.262144, 1.25, 1.5, 35.5, -3.25, 655880.0]
        {
            assert_eq!(decimal(x), x.to_string(), "{x}");
        }
        // Timestamps in ms (the swimlanes' `data-t0`): past where `x * 1e6` is exact.
        for x in [1_764_583_200_001.0, 1_764_583_200_000.0, 9_007_199_254_740_991.0] {
            assert_eq!(decimal(x), x.to_string(), "{x}");
        }
        assert_eq!(decimal(0.9999997), "1");
        assert_eq!(decimal(-2.0000004), "-2");
        assert_eq!(decimal(1.0 / 3.0), "0.333333");
        assert_eq!(decimal(-0.0000001), "0");
        assert_eq!(decimal(f64::NAN), "0");
    }
}
