"""The statistics of an audit, written independently with the standard library only.

Everything docs/statistics.md specifies, from its text rather than from the TypeScript code:
compensated sums and means, type-7 quantiles, the regularized incomplete beta function (by
continued fraction, with log-beta from Stirling differences where lgamma would lose digits),
beta and Student t quantiles, binomial distribution functions, the Clopper-Pearson, Wilson,
order-statistic, t and bounded-mean intervals, and the bootstrap with the documented MT19937
index stream (percentile and BCa). The TypeScript core uses simple-statistics and stdlib-js for
some of these; agreement is tested to 1e-12 relative.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist
from typing import List, Optional, Sequence, Tuple

__all__ = [
    "fsum_neumaier",
    "mean",
    "quantile_sorted",
    "quantile",
    "sample_sd",
    "skewness",
    "regularized_beta",
    "beta_quantile",
    "t_quantile",
    "binomial_cdf",
    "binomial_quantile",
    "normal_cdf",
    "normal_quantile",
    "clopper_pearson",
    "wilson",
    "wilson_exact_error",
    "order_statistic",
    "bounded_mean",
    "t_interval",
    "Mt19937",
    "bootstrap_means",
    "two_sample_bootstrap",
    "paired_proportion_interval",
    "mcnemar_exact_p",
]

_N01 = NormalDist()


# ---- sums, means, quantiles --------------------------------------------------------------

def fsum_neumaier(xs: Sequence[float]) -> float:
    """Kahan-Babuska (Neumaier) compensated sum, the sum docs/statistics.md names.

    >>> fsum_neumaier([1e100, 1.0, -1e100])
    1.0
    """
    if not xs:
        return 0.0
    total = xs[0]
    correction = 0.0
    for x in xs[1:]:
        t = total + x
        if abs(total) >= abs(x):
            correction += (total - t) + x
        else:
            correction += (x - t) + total
        total = t
    return total + correction


def mean(xs: Sequence[float]) -> float:
    """The compensated mean.

    >>> mean([1.0, 2.0, 4.0])
    2.3333333333333335
    """
    return fsum_neumaier(xs) / len(xs)


def quantile_sorted(xs: Sequence[float], p: float) -> float:
    """Type-7 quantile of ascending values: h = (n - 1)p, linear between floor(h) and ceil(h).

    >>> quantile_sorted([1.0, 2.0, 3.0, 4.0], 0.5)
    2.5
    """
    n = len(xs)
    if p == 1:
        return xs[n - 1]
    if p == 0:
        return xs[0]
    h = (n - 1) * p
    if h % 1 != 0:
        lower = math.floor(h)
        upper = math.ceil(h)
        return xs[lower] + (h - lower) * (xs[upper] - xs[lower])
    return xs[int(h)]


def quantile(xs: Sequence[float], p: float) -> float:
    """Type-7 quantile of unsorted values."""
    return quantile_sorted(sorted(xs), p)


def sample_sd(xs: Sequence[float]) -> float:
    """Sample standard deviation: sqrt(sum((x - mean)^2) / (n - 1)), the compensated mean."""
    m = mean(xs)
    s = 0.0
    for x in xs:
        d = x - m
        s += d * d
    return math.sqrt(s / (len(xs) - 1))


def skewness(xs: Sequence[float]) -> float:
    """g1 = m3 / m2^(3/2), biased moments about the plain mean; 0 for constant data.

    >>> abs(skewness([1.0, 1.0, 1.0, 10.0]) - 2 / math.sqrt(3)) < 1e-15
    True
    """
    n = len(xs)
    m = 0.0
    for x in xs:
        m += x
    m /= n
    m2 = m3 = 0.0
    for x in xs:
        d = x - m
        m2 += d * d
        m3 += d * d * d
    m2 /= n
    m3 /= n
    return 0.0 if m2 == 0 else m3 / m2 ** 1.5


# ---- special functions -------------------------------------------------------------------

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_BIG = 20.0


def _stirling_tail(x: float) -> float:
    """ln Gamma(x) - [(x - 1/2) ln x - x + ln(2 pi)/2], by its asymptotic series (x >= 20)."""
    x2 = x * x
    term = 1 / x
    s = 0.0
    for c in _STIRLING:
        s += c * term
        term /= x2
    return s


def _lgamma_ratio(a: float, b: float) -> float:
    """ln Gamma(a) - ln Gamma(a + b) for a >= 20, without the cancellation of two lgammas."""
    return (-(a - 0.5) * math.log1p(b / a) - b * math.log(a + b) + b
            + _stirling_tail(a) - _stirling_tail(a + b))


def log_beta(a: float, b: float) -> float:
    """ln B(a, b) = ln Gamma(a) + ln Gamma(b) - ln Gamma(a + b), accurate for large arguments.

    >>> abs(log_beta(3.0, 4.0) - math.log(1 / 60)) < 1e-15
    True
    """
    if a < b:
        a, b = b, a
    if a < _BIG:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    if b < _BIG:
        return math.lgamma(b) + _lgamma_ratio(a, b)
    s = a + b
    return (_HALF_LOG_2PI + (a - 0.5) * math.log(a / s) + (b - 0.5) * math.log(b / s)
            - 0.5 * math.log(s) + _stirling_tail(a) + _stirling_tail(b) - _stirling_tail(s))


def _beta_cf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    for m in range(1, 100000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def regularized_beta(x: float, a: float, b: float, upper: bool = False,
                     y: Optional[float] = None) -> float:
    """I_x(a, b) (or 1 - I_x(a, b) with ``upper``), each tail computed directly; ``y`` is
    1 - x when the caller has it more precisely than 1 - x would give.

    >>> abs(regularized_beta(0.5, 2.0, 3.0) - 0.6875) < 1e-15
    True
    """
    if y is None:
        y = 1 - x
    if x <= 0:
        return 1.0 if upper else 0.0
    if y <= 0:
        return 0.0 if upper else 1.0
    log_x = math.log(x) if x < 0.5 else math.log1p(-y)
    log_y = math.log(y) if y < 0.5 else math.log1p(-x)
    front = math.exp(a * log_x + b * log_y - log_beta(a, b))
    if x < (a + 1) / (a + b + 2):
        lower = front * _beta_cf(a, b, x) / a
        return 1.0 - lower if upper else lower
    tail = front * _beta_cf(b, a, y) / b  # 1 - I_x(a, b) = I_{1-x}(b, a)
    return tail if upper else 1.0 - tail


def _log_beta_pdf(x: float, a: float, b: float) -> float:
    return (a - 1) * math.log(x) + (b - 1) * math.log1p(-x) - log_beta(a, b)


def beta_quantile(q: float, a: float, b: float) -> float:
    """The q quantile of Beta(a, b): bisection to a bracket, then Newton steps on the tail.

    >>> abs(beta_quantile(0.025, 120.0, 1.0) - 0.025 ** (1 / 120)) < 1e-15
    True
    """
    if q <= 0:
        return 0.0
    if q >= 1:
        return 1.0
    use_upper = q > 0.5
    target = 1 - q if use_upper else q

    def f(x: float) -> float:  # the tail, minus the target (increasing in x for the lower)
        v = regularized_beta(x, a, b, upper=use_upper)
        return (target - v) if use_upper else (v - target)

    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    for _ in range(50):
        v = f(x)
        if v == 0:
            break
        dens = math.exp(_log_beta_pdf(x, a, b))
        step = v / dens
        nx = x - step
        if not (lo <= nx <= hi):
            nx = (lo + hi) / 2
        if v < 0:
            lo = max(lo, x)
        else:
            hi = min(hi, x)
        if nx == x or abs(nx - x) <= 1e-17 * x:
            x = nx
            break
        x = nx
    return x


def t_cdf_lower(t: float, df: float) -> float:
    """P(T <= t) for t <= 0: I_{df/(df+t^2)}(df/2, 1/2) / 2."""
    t2 = t * t
    return 0.5 * regularized_beta(df / (df + t2), df / 2, 0.5, y=t2 / (df + t2))


def t_quantile(p: float, df: float) -> float:
    """The p quantile of Student's t (Newton on the lower tail, from the normal quantile).

    >>> abs(t_quantile(0.975, 9) / 2.2621571627982044 - 1) < 1e-14
    True
    """
    if p == 0.5:
        return 0.0
    q = p if p < 0.5 else 1 - p
    t = normal_quantile(q)
    lo, hi = -1e300, 0.0
    for _ in range(200):
        v = t_cdf_lower(t, df) - q
        if v == 0:
            break
        if v > 0:
            hi = min(hi, t)
        else:
            lo = max(lo, t)
        logpdf = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
                  - (df + 1) / 2 * math.log1p(t * t / df))
        nt = t - v / math.exp(logpdf)
        if not (lo < nt < hi):
            nt = (lo + hi) / 2 if lo > -1e300 else 2 * t
        if abs(nt - t) <= 1e-16 * abs(t):
            t = nt
            break
        t = nt
    return t if p < 0.5 else -t


def normal_cdf(x: float) -> float:
    """Standard normal CDF from erfc (full relative precision in the lower tail)."""
    return 0.5 * math.erfc(-x / math.sqrt(2))


def normal_quantile(p: float) -> float:
    """Standard normal quantile (the standard library's, Wichura's AS241)."""
    return _N01.inv_cdf(p)


def log_binomial_pmf(k: int, n: int, p: float) -> float:
    """ln P(X = k) for X ~ Binomial(n, p), 0 < p < 1."""
    return (-math.log(n + 1) - log_beta(n - k + 1, k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) = I_{1-p}(n - k, k + 1).

    >>> abs(binomial_cdf(3, 30, 0.05) - 0.9392284386912566) < 1e-13
    True
    """
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return regularized_beta(1 - p, n - k, k + 1)


def binomial_quantile(q: float, n: int, p: float) -> int:
    """The smallest k in [0, n] with P(X <= k) >= q."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if binomial_cdf(mid, n, p) >= q:
            hi = mid
        else:
            lo = mid + 1
    return lo


# ---- intervals ---------------------------------------------------------------------------

def clopper_pearson(k: int, n: int, confidence: float) -> Tuple[float, float]:
    """Beta quantiles: [B^-1(beta; k, n-k+1), B^-1(1-beta; k+1, n-k)], 0 and 1 at the ends."""
    beta = (1 - confidence) / 2
    low = 0.0 if k == 0 else beta_quantile(beta, k, n - k + 1)
    high = 1.0 if k == n else beta_quantile(1 - beta, k + 1, n - k)
    return low, high


def wilson(k: int, n: int, confidence: float) -> Tuple[float, float]:
    """Wilson score interval, clipped to [0, 1]."""
    z = -normal_quantile((1 - confidence) / 2)
    phat = k / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (phat + z2 / (2 * n)) / denominator
    half = (z / denominator) * math.sqrt(phat * (1 - phat) / n + z2 / (4 * n * n))
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def _satisfies(x: float, comparator: str, t: float) -> bool:
    return {"<": x < t, "<=": x <= t, ">": x > t, ">=": x >= t}[comparator]


def wilson_exact_error(n: int, threshold: float, comparator: str, confidence: float) -> float:
    """P(the Wilson rule validates | true proportion = threshold): the sum of binomial
    probabilities over the counts whose bound lies wholly on the claim's side."""
    if not (0 < threshold < 1):
        return 0.0
    upper = comparator in ("<", "<=")
    size = 0.0
    for k in range(n + 1):
        lo, hi = wilson(k, n, confidence)
        if _satisfies(hi if upper else lo, comparator, threshold):
            size += math.exp(log_binomial_pmf(k, n, threshold))
    return min(1.0, max(0.0, size))


def order_statistic(values: Sequence[float], p: float, confidence: float,
                    censored: Optional[Sequence[bool]] = None) -> Tuple[float, float, int, int]:
    """Distribution-free bounds of the p quantile: (low, high, rank_low, rank_high), 1-based
    ranks, 0 and n + 1 meaning unbounded (then the bound is -inf or +inf)."""
    n = len(values)
    beta = (1 - confidence) / 2
    lower = binomial_quantile(beta, n, p)
    upper = min(binomial_quantile(1 - beta, n, p) + 1, n + 1)
    known = sorted(values)
    upper_side = sorted(math.inf if censored and censored[i] else v for i, v in enumerate(values))
    low = -math.inf if lower == 0 else known[lower - 1]
    high = math.inf if upper > n else upper_side[upper - 1]
    return low, high, lower, upper


def bounded_mean(values: Sequence[float], lo: float, hi: float,
                 confidence: float) -> Tuple[float, float]:
    """Anderson's interval for a mean on [lo, hi] from the one-sided DKW band (Massart)."""
    n = len(values)
    eps = math.sqrt(math.log(2 / (1 - confidence)) / (2 * n))
    if eps >= 1:
        return lo, hi
    x = sorted(values)
    high = eps * hi
    low = eps * lo
    for i in range(1, n + 1):
        w_high = max(0.0, i / n - max((i - 1) / n, eps))
        w_low = max(0.0, min(i / n, 1 - eps) - (i - 1) / n)
        high += w_high * x[i - 1]
        low += w_low * x[i - 1]
    return max(lo, low), min(hi, high)


def t_interval(values: Sequence[float], confidence: float) -> Tuple[float, float]:
    """mean -/+ t_{1-beta, n-1} s / sqrt(n)."""
    n = len(values)
    m = mean(values)
    sd = sample_sd(values)
    half = 0.0 if sd == 0 else -t_quantile((1 - confidence) / 2, n - 1) * sd / math.sqrt(n)
    return m - half, m + half


# ---- the bootstrap -----------------------------------------------------------------------

class Mt19937:
    """MT19937 with the reference ``init_genrand(seed)``; raw 32-bit outputs come from the
    standard library's generator (the same algorithm), loaded with that state.

    >>> g = Mt19937(5489)
    >>> g.next_u32(), g.next_u32()
    (3499211612, 581869302)
    """

    def __init__(self, seed: int) -> None:
        mt = [0] * 624
        mt[0] = seed & 0xFFFFFFFF
        for i in range(1, 624):
            prev = mt[i - 1]
            mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
        self._r = random.Random()
        self._r.setstate((3, tuple(mt) + (624,), None))
        self.next_u32 = lambda: self._r.getrandbits(32)

    def index(self, n: int, limit: int) -> int:
        """The documented index draw: v = u XOR 2^31, redrawn while v >= limit; v mod n."""
        v = self.next_u32() ^ 0x80000000
        while v >= limit:
            v = self.next_u32() ^ 0x80000000
        return v % n


def index_limit(n: int) -> int:
    """floor(2^32 / n) n for n > 2, else 2^32."""
    return (2 ** 32 // n) * n if n > 2 else 2 ** 32


def bootstrap_means(values: Sequence[float], resamples: int, seed: int) -> List[float]:
    """B resample means (:func:`mean`: compensated sums), in resample order."""
    n = len(values)
    g = Mt19937(seed)
    limit = index_limit(n)
    return [mean([values[g.index(n, limit)] for _ in range(n)]) for _ in range(resamples)]


def two_sample_bootstrap(candidate: Sequence[float], baseline: Sequence[float],
                         p: Optional[float], paired: bool, resamples: int,
                         seed: int) -> Tuple[List[float], List[float]]:
    """Each side's statistic in every resample of a comparison bootstrap, in resample order:
    the mean (``p`` None, compensated sums) or the type-7 ``p`` quantile of the resample.

    One MT19937 stream seeded with ``seed``, indices drawn as :func:`bootstrap_means` draws
    them. Paired (same length): resample b draws n item indices and both sides take those
    items. Unpaired: n_c indices into the candidate, then n_b into the baseline.

    >>> c, b = two_sample_bootstrap([2.0, 4.0, 6.0], [1.0, 2.0, 3.0], None, True, 5, 7)
    >>> all(x == 2 * y for x, y in zip(c, b))
    True
    """
    nc, nb = len(candidate), len(baseline)
    g = Mt19937(seed)
    limit_c, limit_b = index_limit(nc), index_limit(nb)

    def draw(n: int, limit: int) -> List[int]:
        return [g.index(n, limit) for _ in range(n)]

    def stat(values: Sequence[float], idx: List[int]) -> float:
        if p is None:
            return mean([values[j] for j in idx])
        return quantile_sorted(sorted(values[j] for j in idx), p)

    out_c: List[float] = []
    out_b: List[float] = []
    for _ in range(resamples):
        if paired:
            idx = draw(nc, limit_c)
            out_c.append(stat(candidate, idx))
            out_b.append(stat(baseline, idx))
        else:
            out_c.append(stat(candidate, draw(nc, limit_c)))
            out_b.append(stat(baseline, draw(nb, limit_b)))
    return out_c, out_b


def paired_proportion_interval(n: int, b: int, c: int, confidence: float
                               ) -> Tuple[float, float, Tuple[float, float],
                                          Tuple[float, float]]:
    """The exact interval of a difference of paired proportions from its discordant pairs
    (b: candidate alone right, c: baseline alone right): (low, high, share, discordance), each
    of the four one-sided bounds at beta/2.

    >>> low, high, _, _ = paired_proportion_interval(200, 3, 1, 0.95)
    >>> -0.039 < low < 0 and 0.05 < high < 0.056
    True
    """
    beta = (1 - confidence) / 2
    inner = 1 - beta
    m = b + c
    share = (0.0, 1.0) if m == 0 else clopper_pearson(b, m, inner)
    discordance = clopper_pearson(m, n, inner)
    low_share, high_share = 2 * share[0] - 1, 2 * share[1] - 1
    low = low_share * (discordance[0] if low_share >= 0 else discordance[1])
    high = high_share * (discordance[1] if high_share >= 0 else discordance[0])
    return low, high, share, discordance


def mcnemar_exact_p(b: int, c: int) -> float:
    """The exact McNemar test's two-sided p-value: min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2).

    >>> mcnemar_exact_p(0, 0), abs(mcnemar_exact_p(10, 0) - 2 / 1024) < 1e-15
    (1.0, True)
    """
    m = b + c
    if m == 0:
        return 1.0
    return min(1.0, 2 * binomial_cdf(min(b, c), m, 0.5))
