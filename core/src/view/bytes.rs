//! The varints, texts and checked reads behind the views kept as bytes (issue 26 item 4).

/// Why kept bytes were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadBytes {
    /// Where reading stopped.
    pub at: usize,
    /// What was wrong there.
    pub what: &'static str,
}

impl std::fmt::Display for BadBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a kept view unreadable at byte {}: {}", self.at, self.what)
    }
}

impl std::error::Error for BadBytes {}

/// The bytes being written.
pub(super) struct Out(pub(super) Vec<u8>);

impl Out {
    /// An unsigned LEB128 number.
    pub(super) fn num(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    /// `None` as 0, `Some(v)` as `v + 1`.
    pub(super) fn opt(&mut self, v: Option<u64>) {
        self.num(v.map_or(0, |v| v + 1));
    }

    /// Its length, then its UTF-8.
    pub(super) fn text(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
}

/// The bytes being read, and where.
pub(super) struct In<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl In<'_> {
    pub(super) fn bad(&self, what: &'static str) -> BadBytes {
        BadBytes { at: self.at, what }
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&[u8], BadBytes> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len()).ok_or(self.bad("cut short"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    pub(super) fn byte(&mut self) -> Result<u8, BadBytes> {
        Ok(self.take(1)?[0])
    }

    pub(super) fn num(&mut self) -> Result<u64, BadBytes> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f)
                .checked_shl(shift)
                .filter(|_| shift < 63 || b <= 1)
                .ok_or(self.bad("a number too large"))?;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(self.bad("a number too long"))
    }

    /// A count of items still to read: each takes at least one byte, so a count past the
    /// bytes left is refused before anything is reserved for it.
    pub(super) fn len(&mut self) -> Result<usize, BadBytes> {
        let n = self.num()?;
        usize::try_from(n).ok().filter(|n| *n <= self.bytes.len() - self.at).ok_or(self.bad("a count past the end"))
    }

    pub(super) fn opt(&mut self) -> Result<Option<u64>, BadBytes> {
        Ok(self.num()?.checked_sub(1))
    }

    pub(super) fn index(&mut self, below: usize, what: &'static str) -> Result<usize, BadBytes> {
        let v = self.num()?;
        usize::try_from(v).ok().filter(|v| *v < below).ok_or(self.bad(what))
    }

    pub(super) fn opt_index(&mut self, below: usize, what: &'static str) -> Result<Option<usize>, BadBytes> {
        match self.opt()? {
            None => Ok(None),
            Some(v) => usize::try_from(v).ok().filter(|v| *v < below).map(Some).ok_or(self.bad(what)),
        }
    }

    pub(super) fn text(&mut self) -> Result<String, BadBytes> {
        let n = self.len()?;
        let at = self.at;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| BadBytes { at, what: "text that is not UTF-8" })
    }
}
