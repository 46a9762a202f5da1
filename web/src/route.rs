//! Deep links: every view, handoff, inbox thread and thread has a URL (the location hash), so
//! a link or a reload opens the same place. `?at=N` views the workspace as of record N.

/// A view of the console.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum View {
    /// Workspace list and the demo offer.
    #[default]
    Home,
    /// The delegation tree; `id` selects a handoff.
    Chains,
    /// Blueprint journeys.
    Missions,
    /// Inboxes; `id` is the recipient handle, `sub` a relay thread.
    Inbox,
    /// One thread with its mailbox; `id` is the thread.
    Thread,
    /// The log over time.
    Timeline,
    /// Forms for every tool; `id` is the tool.
    Act,
    /// Builds a load workspace of `id` handoffs (the bench).
    Generate,
}

impl View {
    fn slug(self) -> &'static str {
        match self {
            View::Home => "",
            View::Chains => "chains",
            View::Missions => "missions",
            View::Inbox => "inbox",
            View::Thread => "thread",
            View::Timeline => "timeline",
            View::Act => "act",
            View::Generate => "generate",
        }
    }

    /// The views in the navigation bar, with their keyboard shortcut.
    pub const NAV: [(View, &'static str, &'static str); 5] = [
        (View::Chains, "Chains", "1"),
        (View::Missions, "Missions", "2"),
        (View::Inbox, "Inboxes", "3"),
        (View::Timeline, "Timeline", "4"),
        (View::Act, "Act as agent", "5"),
    ];
}

/// Where the console is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Route {
    /// Workspace id.
    pub ws: Option<String>,
    /// View.
    pub view: View,
    /// The view's subject (handoff, handle, thread, tool).
    pub id: Option<String>,
    /// A second level (an inbox's thread).
    pub sub: Option<String>,
    /// View the workspace as of this record.
    pub at: Option<u64>,
    /// How the view draws (`graph` for the chains, `records` for the timeline).
    pub mode: Option<String>,
}

fn enc(s: &str) -> String {
    js_sys::encode_uri_component(s).into()
}

fn dec(s: &str) -> String {
    js_sys::decode_uri_component(s).ok().map(String::from).unwrap_or_else(|| s.to_string())
}

impl Route {
    /// A view of a workspace.
    pub fn of(ws: &str, view: View) -> Route {
        Route { ws: Some(ws.to_string()), view, ..Route::default() }
    }

    /// With a subject.
    pub fn with_id(mut self, id: impl Into<String>) -> Route {
        self.id = Some(id.into());
        self
    }

    /// With a second level.
    pub fn with_sub(mut self, sub: impl Into<String>) -> Route {
        self.sub = Some(sub.into());
        self
    }

    /// Reads a location hash (`#/w/demo/chains/handoff_1?at=12`).
    pub fn parse(hash: &str) -> Route {
        let hash = hash.trim_start_matches('#');
        let (path, query) = hash.split_once('?').unwrap_or((hash, ""));
        let parts: Vec<String> = path.split('/').filter(|p| !p.is_empty()).map(dec).collect();
        let at = query.split('&').find_map(|kv| kv.strip_prefix("at=")).and_then(|v| v.parse().ok());
        let mode = query.split('&').find_map(|kv| kv.strip_prefix("mode=")).filter(|m| !m.is_empty()).map(dec);
        let mut r = Route { at, mode, ..Route::default() };
        match parts.as_slice() {
            [g, n, ..] if g == "generate" => {
                r.view = View::Generate;
                r.id = Some(n.clone());
            }
            [w, ws, rest @ ..] if w == "w" => {
                r.ws = Some(ws.clone());
                r.view = match rest.first().map(String::as_str) {
                    Some("missions") => View::Missions,
                    Some("inbox") => View::Inbox,
                    Some("thread") => View::Thread,
                    Some("timeline") => View::Timeline,
                    Some("act") => View::Act,
                    _ => View::Chains,
                };
                r.id = rest.get(1).cloned();
                r.sub = rest.get(2).cloned();
            }
            _ => {}
        }
        r
    }

    /// The location hash for this route.
    pub fn to_hash(&self) -> String {
        let mut s = String::from("#/");
        match (&self.ws, self.view) {
            (_, View::Generate) => {
                s.push_str("generate/");
                s.push_str(&enc(self.id.as_deref().unwrap_or("10000")));
            }
            (None, _) | (_, View::Home) => {}
            (Some(ws), view) => {
                s.push_str("w/");
                s.push_str(&enc(ws));
                s.push('/');
                s.push_str(view.slug());
                for part in [&self.id, &self.sub].into_iter().flatten() {
                    s.push('/');
                    s.push_str(&enc(part));
                }
            }
        }
        let mut query = Vec::new();
        if let Some(at) = self.at {
            query.push(format!("at={at}"));
        }
        if let Some(mode) = &self.mode {
            query.push(format!("mode={}", enc(mode)));
        }
        if !query.is_empty() {
            s.push('?');
            s.push_str(&query.join("&"));
        }
        s
    }
}

/// A workspace id for a display name: lowercase letters, digits and dashes, not yet taken.
pub fn fresh_id(name: &str, taken: &[String]) -> String {
    let mut base: String =
        baton_core::lower_for_ascii(name).chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    base = base.trim_matches('-').to_string();
    if base.is_empty() {
        base = "workspace".into();
    }
    let mut id = base.clone();
    let mut n = 2;
    while taken.contains(&id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    id
}
