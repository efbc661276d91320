//! The random stream the sample is drawn from: CPython 3.11's `random.Random`, draw for
//! draw (the stream the sample's records were first drawn from, so its bytes stay as
//! the tests know them). The Mersenne Twister seeded with `init_by_array` from the seed's 32-bit
//! words, and the methods of `Lib/random.py` built on it, each consuming the stream
//! exactly as Python's does (`_randbelow` with rejection, `sample`'s two algorithms,
//! `choices` with and without weights).

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// CPython's `random.Random(seed)` for a seed below 2³².
pub(super) struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)`: `init_by_array` with the one word of `seed`.
    pub(super) fn new(seed: u32) -> Self {
        let mut r = PyRandom {
            mt: [0; N],
            index: N,
        };
        r.init_genrand(19_650_218);
        let key = [seed];
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = r.mt[i - 1] ^ (r.mt[i - 1] >> 30);
            r.mt[i] = (r.mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                r.mt[0] = r.mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = r.mt[i - 1] ^ (r.mt[i - 1] >> 30);
            r.mt[i] = (r.mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                r.mt[0] = r.mt[N - 1];
                i = 1;
            }
        }
        r.mt[0] = 0x8000_0000;
        r
    }

    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..N {
            let prev = self.mt[i - 1] ^ (self.mt[i - 1] >> 30);
            self.mt[i] = 1_812_433_253u32.wrapping_mul(prev).wrapping_add(i as u32);
        }
        self.index = N;
    }

    fn twist(&mut self) {
        let mag = |y: u32| if y & 1 == 1 { MATRIX_A } else { 0 };
        for k in 0..N {
            let y = (self.mt[k] & UPPER_MASK) | (self.mt[(k + 1) % N] & LOWER_MASK);
            self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag(y);
        }
        self.index = 0;
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()`: 53 bits from two outputs, in [0, 1).
    pub(super) fn random(&mut self) -> f64 {
        let a = u64::from(self.next_u32() >> 5);
        let b = u64::from(self.next_u32() >> 6);
        (a as f64 * 67_108_864.0 + b as f64) / 9_007_199_254_740_992.0
    }

    /// `getrandbits(k)` for k ≤ 64: 32-bit words from the least significant up, each
    /// the top bits of one output.
    fn getrandbits(&mut self, k: u32) -> u64 {
        let (mut out, mut shift, mut left) = (0u64, 0u32, k);
        while left > 0 {
            let mut w = self.next_u32();
            if left < 32 {
                w >>= 32 - left;
            }
            out |= u64::from(w) << shift;
            shift += 32;
            left = left.saturating_sub(32);
        }
        out
    }

    /// `_randbelow(n)`: `getrandbits(n.bit_length())` until below `n`.
    pub(super) fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let k = 64 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r as usize;
            }
        }
    }

    /// `randrange(lo, hi)`.
    pub(super) fn randrange(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(hi > lo, "empty range for randrange({lo}, {hi})");
        lo + self.below((hi - lo) as usize) as i64
    }

    /// `randint(lo, hi)`: both ends included.
    pub(super) fn randint(&mut self, lo: i64, hi: i64) -> i64 {
        self.randrange(lo, hi + 1)
    }

    /// `choice(items)` for owned items.
    pub(super) fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// `choices(range(len(weights)), weights)[0]`: an index drawn by weight.
    pub(super) fn weighted(&mut self, weights: &[u32]) -> usize {
        let cum: Vec<u64> = weights
            .iter()
            .scan(0u64, |acc, w| {
                *acc += u64::from(*w);
                Some(*acc)
            })
            .collect();
        let x = self.random() * cum[cum.len() - 1] as f64;
        // bisect_right(cum, x, 0, n - 1)
        let hi = cum.len() - 1;
        cum[..hi].partition_point(|c| *c as f64 <= x)
    }

    /// `sample(range(n), k)`: the positions `sample` picks from a population of `n`,
    /// by the algorithm Python chooses for that size (a pool when a list of `n` is
    /// smaller than a set of `k`, else rejection of repeats).
    pub(super) fn sample_indices(&mut self, n: usize, k: usize) -> Vec<usize> {
        assert!(k <= n, "sample larger than population");
        let mut setsize = 21usize;
        if k > 5 {
            let exp = ((k * 3) as f64).ln() / 4f64.ln();
            setsize += 4usize.pow(exp.ceil() as u32);
        }
        let mut result = Vec::with_capacity(k);
        if n <= setsize {
            let mut pool: Vec<usize> = (0..n).collect();
            for i in 0..k {
                let j = self.below(n - i);
                result.push(pool[j]);
                pool[j] = pool[n - i - 1];
            }
        } else {
            let mut selected = std::collections::HashSet::new();
            for _ in 0..k {
                let mut j = self.below(n);
                while selected.contains(&j) {
                    j = self.below(n);
                }
                selected.insert(j);
                result.push(j);
            }
        }
        result
    }

    /// `sample(items, k)`.
    pub(super) fn sample<T: Clone>(&mut self, items: &[T], k: usize) -> Vec<T> {
        self.sample_indices(items.len(), k)
            .into_iter()
            .map(|i| items[i].clone())
            .collect()
    }

    /// `shuffle(items)`.
    pub(super) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// `uniform(a, b)`.
    pub(super) fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.random()
    }

    /// `paretovariate(alpha)`.
    pub(super) fn paretovariate(&mut self, alpha: f64) -> f64 {
        let u = 1.0 - self.random();
        u.powf(-1.0 / alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::PyRandom;

    /// Values printed by CPython 3.11 for `random.Random(20261122)`.
    #[test]
    fn draws_match_cpython() {
        let mut r = PyRandom::new(20_261_122);
        let got: Vec<String> = (0..3).map(|_| format!("{:?}", r.random())).collect();
        assert_eq!(
            got,
            [
                "0.9754062858948134",
                "0.5049253049340545",
                "0.6264506011055272"
            ]
        );
        assert_eq!(r.randint(1, 99), 86);
        assert_eq!(
            r.sample_indices(99_899_999, 3),
            [82_827_700, 4_859_888, 8_375_770]
        );
    }
}
