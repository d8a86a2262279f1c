//! A rate: so many requests per period ([`Quota`]), as `"10/min"`.

use std::num::NonZeroU32;
use std::time::Duration;

/// A rate limit: `count` requests per `period`, all of which may come at once (a burst of
/// `count`); after that one more each `period / count` (GCRA, the generic cell rate
/// algorithm, which a token bucket of `count` tokens refilled at that pace equals).
///
/// Written `<n>/<unit>` (`"10/min"`, `"5/s"`, `"1000/hour"`): the unit is `s`, `sec`,
/// `second`, `m`, `min`, `minute`, `h`, `hour`, `d` or `day`.
///
/// ```
/// use mcp::middleware::Quota;
///
/// let quota: Quota = "10/min".parse()?;
/// assert_eq!(quota, Quota::per_minute(10));
/// assert_eq!(quota.interval(), std::time::Duration::from_secs(6));
/// # Ok::<(), mcp::middleware::QuotaError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quota {
    count: NonZeroU32,
    period: Duration,
}

impl Quota {
    /// `count` requests per `period`; `None` when `count` is 0 or the interval between two
    /// requests (`period / count`) is under a nanosecond. A `const fn`, so that the quota of
    /// `#[tool(rate_limit = "...")]` is checked in a constant.
    pub const fn new(count: u32, period: Duration) -> Option<Self> {
        let Some(count) = NonZeroU32::new(count) else {
            return None;
        };
        if period.as_nanos() / count.get() as u128 == 0 {
            return None;
        }
        Some(Self { count, period })
    }

    /// `count` requests per second (at least 1).
    pub fn per_second(count: u32) -> Self {
        Self::of(count, Duration::from_secs(1))
    }

    /// `count` requests per minute (at least 1).
    pub fn per_minute(count: u32) -> Self {
        Self::of(count, Duration::from_secs(60))
    }

    /// `count` requests per hour (at least 1).
    pub fn per_hour(count: u32) -> Self {
        Self::of(count, Duration::from_secs(3600))
    }

    fn of(count: u32, period: Duration) -> Self {
        Self {
            count: NonZeroU32::new(count.max(1)).unwrap_or(NonZeroU32::MIN),
            period,
        }
    }

    /// How many requests per period (and the largest burst).
    pub fn count(&self) -> u32 {
        self.count.get()
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// The time one request's budget takes to come back: `period / count`.
    pub fn interval(&self) -> Duration {
        self.period / self.count.get()
    }

    /// The quota as governor's.
    pub(crate) fn governor(self) -> governor::Quota {
        governor::Quota::with_period(self.interval())
            .unwrap_or_else(|| governor::Quota::per_second(NonZeroU32::MAX))
            .allow_burst(self.count)
    }
}

/// A quota that does not parse: what [`Quota`]'s `FromStr` says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a rate such as \"10/min\" (<n>/<s|sec|second|m|min|minute|h|hour|d|day>, n at least 1)"
)]
pub struct QuotaError(String);

impl std::str::FromStr for Quota {
    type Err = QuotaError;

    fn from_str(text: &str) -> Result<Self, QuotaError> {
        let bad = || QuotaError(text.to_owned());
        let (count, unit) = text.trim().split_once('/').ok_or_else(bad)?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        let secs = match unit.trim() {
            "s" | "sec" | "second" => 1,
            "m" | "min" | "minute" => 60,
            "h" | "hour" => 3600,
            "d" | "day" => 86_400,
            _ => return Err(bad()),
        };
        Self::new(count, Duration::from_secs(secs)).ok_or_else(bad)
    }
}

impl std::fmt::Display for Quota {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = match self.period.as_secs() {
            1 => "s".to_owned(),
            60 => "min".to_owned(),
            3600 => "hour".to_owned(),
            86_400 => "day".to_owned(),
            _ => format!("{}ms", self.period.as_millis()),
        };
        write!(f, "{}/{unit}", self.count)
    }
}
