//! `roost db synth`: deterministic synthetic datasets for benchmarks.
//!
//! [`dataset`] builds a whole [`Dataset`] in memory from one ChaCha8 stream seeded with
//! the `--seed` value, so the same scale and seed always give the same records in the
//! same order; [`synth`] hands it to [`store::build`], which validates it like an import
//! and writes the SQLite file atomically.
//!
//! The shape follows the real data it stands in for: repositories per organization,
//! stars and issues per repository follow power laws (a few huge repositories, a long
//! tail of quiet ones); timestamps spread over 2016–2026 with more recent activity;
//! names mix scripts (accents, Cyrillic, Greek, CJK); issue bodies are long Markdown
//! built cheaply from a word list; every enum value occurs; optional values are
//! sometimes null; companies and locations come from small pools so the member
//! filters have repeated values. Every natural key is unique case-insensitively.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use chrono::{Datelike, Duration, NaiveDate};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::records::{
    synthetic_origin, Category, Chapter, Color, Committee, Dataset, Date, Event, Issue, IssueRef,
    Label, Leader, Level, Member, MemberType, Milestone, Organization, Project, ProjectType,
    Records, Release, ReleaseRef, Repository, RepositoryContributor, RepositoryRef, Snapshot,
    SnapshotStatus, Sponsor, SponsorType, State, Ts,
};
use crate::store;

type Rng = ChaCha8Rng;

/// Record counts of one scale. Repository contributors are not fixed: each repository
/// gets a skewed number between 2 and [`MAX_CONTRIBUTORS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub chapters: usize,
    pub committees: usize,
    pub events: usize,
    pub projects: usize,
    pub sponsors: usize,
    pub organizations: usize,
    pub repositories: usize,
    pub members: usize,
    pub issues: usize,
    pub milestones: usize,
    pub releases: usize,
    pub labels: usize,
    pub snapshots: usize,
}

/// The most contributors one repository gets.
pub const MAX_CONTRIBUTORS: usize = 60;

const NEST: Counts = Counts {
    chapters: 300,
    committees: 12,
    events: 150,
    projects: 300,
    sponsors: 60,
    organizations: 40,
    repositories: 8_000,
    members: 60_000,
    issues: 200_000,
    milestones: 6_000,
    releases: 25_000,
    labels: 2_000,
    snapshots: 24,
};

/// The size of a synthetic dataset (`roost db synth --scale`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// A twentieth of `nest`.
    Small,
    /// About the community's real size.
    Nest,
    /// `nest` with the code-hosting tables ten times larger.
    TenX,
}

impl Scale {
    pub const ALL: [Scale; 3] = [Scale::Small, Scale::Nest, Scale::TenX];

    pub fn as_str(self) -> &'static str {
        match self {
            Scale::Small => "small",
            Scale::Nest => "nest",
            Scale::TenX => "10x",
        }
    }
}

/// A scale name that is not one of [`Scale::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scale '{0}', expected one of small, nest, 10x")]
pub struct UnknownScale(pub String);

impl std::str::FromStr for Scale {
    type Err = UnknownScale;
    fn from_str(s: &str) -> Result<Scale, UnknownScale> {
        Scale::ALL
            .into_iter()
            .find(|x| x.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownScale(s.to_string()))
    }
}

/// How many records of each type a scale produces (exactly).
pub fn counts(scale: Scale) -> Counts {
    match scale {
        Scale::Nest => NEST,
        // The code-hosting tables (organizations, repositories, members, issues,
        // milestones, releases, labels) grow; the community ones stay.
        Scale::TenX => Counts {
            organizations: NEST.organizations * 10,
            repositories: NEST.repositories * 10,
            members: NEST.members * 10,
            issues: NEST.issues * 10,
            milestones: NEST.milestones * 10,
            releases: NEST.releases * 10,
            labels: NEST.labels * 10,
            ..NEST
        },
        // A twentieth, with enough of each to hold every enum value.
        Scale::Small => {
            let s = |n: usize, min: usize| (n / 20).max(min);
            Counts {
                chapters: s(NEST.chapters, 10),
                committees: s(NEST.committees, 3),
                events: s(NEST.events, 8),
                projects: s(NEST.projects, 10),
                sponsors: s(NEST.sponsors, 8),
                organizations: s(NEST.organizations, 5),
                repositories: s(NEST.repositories, 20),
                members: s(NEST.members, 50),
                issues: s(NEST.issues, 100),
                milestones: s(NEST.milestones, 10),
                releases: s(NEST.releases, 20),
                labels: s(NEST.labels, 20),
                snapshots: s(NEST.snapshots, 8),
            }
        }
    }
}

/// Writes the synthetic dataset of `scale` and `seed` to `db` (atomically).
pub fn synth(scale: Scale, seed: u64, db: &Path) -> Result<(), store::StoreError> {
    let ds = dataset(scale, seed);
    store::build(&ds, db)
}

/// The synthetic dataset of `scale` and `seed`, in memory. Deterministic.
pub fn dataset(scale: Scale, seed: u64) -> Dataset {
    Synth::new(counts(scale), seed).run()
}

// ---------------------------------------------------------------------------------
// Time

/// 2016-01-01T00:00:00Z, in seconds.
const START: i64 = 1_451_606_400;
/// 2026-10-01T00:00:00Z, in seconds: the end of the synthetic history.
const END: i64 = 1_790_812_800;
const DAY: i64 = 86_400;

fn ts(secs: i64) -> Ts {
    Ts(secs * 1_000_000)
}

fn month_start(year: i32, month: u32) -> i64 {
    NaiveDate::from_ymd_opt(year, month, 1)
        .expect("valid month")
        .and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc()
        .timestamp()
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

// ---------------------------------------------------------------------------------
// Pools

/// (display, ascii) given names from several scripts.
#[rustfmt::skip]
const GIVEN: &[(&str, &str)] = &[
    ("Sarah", "sarah"), ("José", "jose"), ("Zoë", "zoe"), ("François", "francois"),
    ("Łukasz", "lukasz"), ("Søren", "soren"), ("Ömer", "omer"), ("Inés", "ines"),
    ("Noah", "noah"), ("Amara", "amara"), ("Kwame", "kwame"), ("Olivia", "olivia"),
    ("Arnav", "arnav"), ("Priya", "priya"), ("Lars", "lars"), ("Dmitri", "dmitri"),
    ("Ольга", "olga"), ("Иван", "ivan"), ("Αλέξανδρος", "alexandros"), ("Ελένη", "eleni"),
    ("Mateo", "mateo"), ("Lucía", "lucia"), ("Chloé", "chloe"), ("Björn", "bjorn"),
    ("Ana", "ana"), ("Fatima", "fatima"), ("Omar", "omar"), ("Yusuf", "yusuf"),
    ("Aisha", "aisha"), ("Chidi", "chidi"), ("Ngozi", "ngozi"), ("Thandiwe", "thandiwe"),
    ("Maximilian", "max"), ("Jürgen", "jurgen"), ("Anaïs", "anais"), ("Nikolaj", "nikolaj"),
    ("Emma", "emma"), ("Liam", "liam"), ("Mia", "mia"), ("Ethan", "ethan"), ("Sofía", "sofia"),
    ("Raúl", "raul"), ("Gabriel", "gabriel"), ("Camille", "camille"), ("Ravi", "ravi"),
    ("Ananya", "ananya"), ("Tomás", "tomas"), ("Ingrid", "ingrid"), ("Mehmet", "mehmet"),
    ("Leila", "leila"), ("Kofi", "kofi"), ("Zanele", "zanele"),
];

/// (display, ascii) family names.
#[rustfmt::skip]
const FAMILY: &[(&str, &str)] = &[
    ("Suzuki", "suzuki"), ("García", "garcia"), ("Müller", "muller"), ("Nguyễn", "nguyen"),
    ("Dvořák", "dvorak"), ("Eriksson", "eriksson"), ("Adeyemi", "adeyemi"),
    ("Schmidt", "schmidt"), ("Rodríguez", "rodriguez"), ("Kowalski", "kowalski"),
    ("Øvergaard", "overgaard"), ("Yılmaz", "yilmaz"), ("Mehta", "mehta"), ("Tran", "tran"),
    ("Cohen", "cohen"), ("Khan", "khan"), ("Petrov", "petrov"), ("Иванова", "ivanova"),
    ("Παπαδόπουλος", "papadopoulos"), ("Smith", "smith"), ("Johnson", "johnson"),
    ("Brown", "brown"), ("Lefèvre", "lefevre"), ("Côté", "cote"), ("Gonçalves", "goncalves"),
    ("Silva", "silva"), ("Okafor", "okafor"), ("Mensah", "mensah"), ("Nkosi", "nkosi"),
    ("Haddad", "haddad"), ("Al-Farsi", "alfarsi"), ("O'Brien", "obrien"),
    ("Fernández", "fernandez"), ("Rossi", "rossi"), ("Bianchi", "bianchi"), ("Novák", "novak"),
    ("Horváth", "horvath"), ("Jensen", "jensen"), ("Virtanen", "virtanen"), ("Kumar", "kumar"),
    ("Sharma", "sharma"), ("Watanabe", "watanabe"), ("Tanaka", "tanaka"), ("Kim", "kim"),
    ("Park", "park"), ("Wang", "wang"), ("Chen", "chen"), ("Wójcik", "wojcik"),
];

/// (display, ascii) East Asian family names and given names (written family first,
/// without a space).
#[rustfmt::skip]
const CJK_FAMILY: &[(&str, &str)] = &[
    ("李", "li"), ("王", "wang"), ("张", "zhang"), ("陈", "chen"), ("刘", "liu"), ("田中", "tanaka"),
    ("佐藤", "sato"), ("鈴木", "suzuki"), ("高橋", "takahashi"), ("김", "kim"), ("이", "lee"),
    ("박", "park"), ("최", "choi"),
];
#[rustfmt::skip]
const CJK_GIVEN: &[(&str, &str)] = &[
    ("雷", "lei"), ("伟", "wei"), ("静", "jing"), ("芳", "fang"), ("浩然", "haoran"),
    ("さくら", "sakura"), ("健太", "kenta"), ("翔", "sho"), ("結衣", "yui"), ("민준", "minjun"),
    ("서연", "seoyeon"), ("지훈", "jihoon"), ("하은", "haeun"),
];

/// (display name, slug, country, region, latitude, longitude).
type City = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    f64,
    f64,
);
#[rustfmt::skip]
const CITIES: &[City] = &[
    ("London", "london", "United Kingdom", "Europe", 51.5074, -0.1278),
    ("Berlin", "berlin", "Germany", "Europe", 52.52, 13.405),
    ("São Paulo", "sao-paulo", "Brazil", "South America", -23.5505, -46.6333),
    ("Bangalore", "bangalore", "India", "Asia", 12.9716, 77.5946),
    ("New York", "new-york", "United States", "North America", 40.7128, -74.006),
    ("Zürich", "zurich", "Switzerland", "Europe", 47.3769, 8.5417),
    ("東京", "tokyo", "Japan", "Asia", 35.6762, 139.6503),
    ("Kraków", "krakow", "Poland", "Europe", 50.0647, 19.945),
    ("Montréal", "montreal", "Canada", "North America", 45.5017, -73.5673),
    ("Lagos", "lagos", "Nigeria", "Africa", 6.5244, 3.3792),
    ("San Francisco", "san-francisco", "United States", "North America", 37.7749, -122.4194),
    ("Paris", "paris", "France", "Europe", 48.8566, 2.3522),
    ("서울", "seoul", "South Korea", "Asia", 37.5665, 126.978),
    ("Sydney", "sydney", "Australia", "Oceania", -33.8688, 151.2093),
    ("München", "munich", "Germany", "Europe", 48.1351, 11.582),
    ("Bogotá", "bogota", "Colombia", "South America", 4.711, -74.0721),
    ("Tel Aviv", "tel-aviv", "Israel", "Asia", 32.0853, 34.7818),
    ("Nairobi", "nairobi", "Kenya", "Africa", -1.2921, 36.8219),
    ("Singapore", "singapore", "Singapore", "Asia", 1.3521, 103.8198),
    ("Amsterdam", "amsterdam", "Netherlands", "Europe", 52.3676, 4.9041),
    ("Ciudad de México", "mexico-city", "Mexico", "North America", 19.4326, -99.1332),
    ("İstanbul", "istanbul", "Turkey", "Europe", 41.0082, 28.9784),
    ("北京", "beijing", "China", "Asia", 39.9042, 116.4074),
    ("Αθήνα", "athens", "Greece", "Europe", 37.9838, 23.7275),
    ("Reykjavík", "reykjavik", "Iceland", "Europe", 64.1466, -21.9426),
    ("Cape Town", "cape-town", "South Africa", "Africa", -33.9249, 18.4241),
    ("Toronto", "toronto", "Canada", "North America", 43.6532, -79.3832),
    ("Madrid", "madrid", "Spain", "Europe", 40.4168, -3.7038),
    ("Lisboa", "lisbon", "Portugal", "Europe", 38.7223, -9.1393),
    ("Mumbai", "mumbai", "India", "Asia", 19.076, 72.8777),
    ("Buenos Aires", "buenos-aires", "Argentina", "South America", -34.6037, -58.3816),
    ("Dublin", "dublin", "Ireland", "Europe", 53.3498, -6.2603),
    ("Stockholm", "stockholm", "Sweden", "Europe", 59.3293, 18.0686),
    ("København", "copenhagen", "Denmark", "Europe", 55.6761, 12.5683),
    ("Helsinki", "helsinki", "Finland", "Europe", 60.1699, 24.9384),
    ("Oslo", "oslo", "Norway", "Europe", 59.9139, 10.7522),
    ("Wien", "vienna", "Austria", "Europe", 48.2082, 16.3738),
    ("Praha", "prague", "Czechia", "Europe", 50.0755, 14.4378),
    ("Warszawa", "warsaw", "Poland", "Europe", 52.2297, 21.0122),
    ("Budapest", "budapest", "Hungary", "Europe", 47.4979, 19.0402),
    ("București", "bucharest", "Romania", "Europe", 44.4268, 26.1025),
    ("Київ", "kyiv", "Ukraine", "Europe", 50.4501, 30.5234),
    ("Roma", "rome", "Italy", "Europe", 41.9028, 12.4964),
    ("Milano", "milan", "Italy", "Europe", 45.4642, 9.19),
    ("Barcelona", "barcelona", "Spain", "Europe", 41.3874, 2.1686),
    ("Genève", "geneva", "Switzerland", "Europe", 46.2044, 6.1432),
    ("Bruxelles", "brussels", "Belgium", "Europe", 50.8503, 4.3517),
    ("Hamburg", "hamburg", "Germany", "Europe", 53.5511, 9.9937),
    ("Manchester", "manchester", "United Kingdom", "Europe", 53.4808, -2.2426),
    ("Göteborg", "gothenburg", "Sweden", "Europe", 57.7089, 11.9746),
    ("Tallinn", "tallinn", "Estonia", "Europe", 59.437, 24.7536),
    ("Seattle", "seattle", "United States", "North America", 47.6062, -122.3321),
    ("Austin", "austin", "United States", "North America", 30.2672, -97.7431),
    ("Chicago", "chicago", "United States", "North America", 41.8781, -87.6298),
    ("Boston", "boston", "United States", "North America", 42.3601, -71.0589),
    ("Vancouver", "vancouver", "Canada", "North America", 49.2827, -123.1207),
    ("Québec", "quebec", "Canada", "North America", 46.8139, -71.208),
    ("Los Angeles", "los-angeles", "United States", "North America", 34.0522, -118.2437),
    ("Washington DC", "washington-dc", "United States", "North America", 38.9072, -77.0369),
    ("Denver", "denver", "United States", "North America", 39.7392, -104.9903),
    ("Santiago", "santiago", "Chile", "South America", -33.4489, -70.6693),
    ("Lima", "lima", "Peru", "South America", -12.0464, -77.0428),
    ("Medellín", "medellin", "Colombia", "South America", 6.2442, -75.5812),
    ("Montevideo", "montevideo", "Uruguay", "South America", -34.9011, -56.1645),
    ("Accra", "accra", "Ghana", "Africa", 5.6037, -0.187),
    ("Abuja", "abuja", "Nigeria", "Africa", 9.0765, 7.3986),
    ("Kigali", "kigali", "Rwanda", "Africa", -1.9441, 30.0619),
    ("Kampala", "kampala", "Uganda", "Africa", 0.3476, 32.5825),
    ("Addis Ababa", "addis-ababa", "Ethiopia", "Africa", 9.0054, 38.7636),
    ("القاهرة", "cairo", "Egypt", "Africa", 30.0444, 31.2357),
    ("Casablanca", "casablanca", "Morocco", "Africa", 33.5731, -7.5898),
    ("Tunis", "tunis", "Tunisia", "Africa", 36.8065, 10.1815),
    ("Dubai", "dubai", "United Arab Emirates", "Asia", 25.2048, 55.2708),
    ("Riyadh", "riyadh", "Saudi Arabia", "Asia", 24.7136, 46.6753),
    ("Tbilisi", "tbilisi", "Georgia", "Asia", 41.7151, 44.8271),
    ("Delhi", "delhi", "India", "Asia", 28.7041, 77.1025),
    ("Hyderabad", "hyderabad", "India", "Asia", 17.385, 78.4867),
    ("Pune", "pune", "India", "Asia", 18.5204, 73.8567),
    ("Chennai", "chennai", "India", "Asia", 13.0827, 80.2707),
    ("Karachi", "karachi", "Pakistan", "Asia", 24.8607, 67.0011),
    ("Dhaka", "dhaka", "Bangladesh", "Asia", 23.8103, 90.4125),
    ("Jakarta", "jakarta", "Indonesia", "Asia", -6.2088, 106.8456),
    ("Manila", "manila", "Philippines", "Asia", 14.5995, 120.9842),
    ("Hà Nội", "hanoi", "Vietnam", "Asia", 21.0278, 105.8342),
    ("Bangkok", "bangkok", "Thailand", "Asia", 13.7563, 100.5018),
    ("Kuala Lumpur", "kuala-lumpur", "Malaysia", "Asia", 3.139, 101.6869),
    ("台北", "taipei", "Taiwan", "Asia", 25.033, 121.5654),
    ("上海", "shanghai", "China", "Asia", 31.2304, 121.4737),
    ("大阪", "osaka", "Japan", "Asia", 34.6937, 135.5023),
    ("Melbourne", "melbourne", "Australia", "Oceania", -37.8136, 144.9631),
    ("Auckland", "auckland", "New Zealand", "Oceania", -36.8485, 174.7633),
    ("Wellington", "wellington", "New Zealand", "Oceania", -41.2865, 174.7762),
];

#[rustfmt::skip]
const CHAPTER_SUFFIXES: &[(&str, &str)] = &[
    ("North", "north"), ("South", "south"), ("Metro", "metro"), ("Tech", "tech"),
    ("University", "university"), ("Bay Area", "bay-area"), ("Région", "region"),
    ("Süd", "sud"), ("Women in AppSec", "women-in-appsec"), ("Students", "students"),
];

#[rustfmt::skip]
const COMPANIES: &[&str] = &[
    "Acme", "Globex", "Initech", "Hooli", "Umbrella", "Stark Industries", "Wayne Enterprises",
    "@appsec-labs", "Freelance", "Independent", "Self-employed", "Société Générale Sécurité",
    "Müller & Söhne GmbH", "株式会社サイバー", "Contoso", "Fabrikam", "Northwind", "Tyrell",
    "Cyberdyne", "Soylent", "Aperture Science", "Black Mesa", "Vandelay Industries",
    "Pied Piper", "Massive Dynamic", "Oscorp", "Gringotts", "Monsters, Inc.", "Dunder Mifflin",
    "Wonka Industries", "Nakatomi Trading", "Ollivanders", "@secure-code-foundation",
    "Universidad de Buenos Aires", "ETH Zürich", "Tsinghua University",
];

const EXTRA_LOCATIONS: &[&str] = &["Remote", "Earth 🌍", "localhost", "The Internet", "Europe"];

#[rustfmt::skip]
const TITLES: &[&str] = &[
    "Software Engineer", "Security Engineer", "Penetration Tester", "AppSec Lead",
    "Security Researcher", "DevSecOps Engineer", "CTO", "Student", "Consultant",
    "Staff Engineer", "Bug Bounty Hunter", "Ingénieure sécurité", "Red Team Operator",
    "Open Source Maintainer", "Developer Advocate",
];

#[rustfmt::skip]
const BIOS: &[&str] = &[
    "AppSec engineer. Breaking things so you don't have to.",
    "Pentester by day, open-source contributor by night.",
    "Building secure software, one pull request at a time.", "Threat modeling enthusiast ☕",
    "Ingénieur logiciel, passionné de sécurité.", "Sicherheitsforscher und Kaffeetrinker.",
    "セキュリティエンジニア。OSS が好きです。", "Maintainer of too many side projects.",
    "CTF player 🏴 | reverse engineering | fuzzing", "Ex-developer, now defending the web.",
    "Seguridad de aplicaciones y software libre.", "Writing about supply-chain security.",
];

#[rustfmt::skip]
const ORG_WORDS: &[&str] = &[
    "securecode", "juice", "appsec", "threat", "cipher", "vault", "sentinel", "bastion",
    "aegis", "citadel", "phoenix", "kestrel", "falcon", "raven", "owl", "lynx", "badger",
    "otter", "harbor", "beacon", "lighthouse", "compass", "anchor", "shield", "fortress",
    "keystone", "granite", "cobalt", "nimbus", "aurora",
];
#[rustfmt::skip]
const ORG_SUFFIXES: &[&str] = &[
    "-labs", "org", "-project", "-dev", "-community", "hq", "-tools", "-io",
];

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "a", "request", "response", "token", "session", "cookie", "header", "parser",
    "scanner", "rule", "policy", "config", "default", "value", "input", "output", "user",
    "admin", "password", "hash", "salt", "key", "certificate", "TLS", "handshake", "proxy",
    "server", "client", "browser", "cache", "query", "database", "injection", "payload",
    "encoding", "decoder", "buffer", "overflow", "memory", "thread", "lock", "race",
    "condition", "error", "warning", "message", "log", "stack", "trace", "crash", "build",
    "release", "version", "dependency", "package", "module", "plugin", "extension", "API",
    "endpoint", "route", "handler", "middleware", "filter", "report", "test", "fixture", "mock",
    "coverage", "pipeline", "workflow", "runner", "container", "image", "registry", "cluster",
    "node", "pod", "secret", "credential", "permission", "role", "scope", "audit", "finding",
    "severity", "false", "positive", "negative", "regression", "patch", "upgrade", "migration",
    "schema", "field", "column", "index", "timeout", "retry", "limit", "rate", "quota",
    "signature", "verification", "sandbox", "escape", "path", "traversal", "redirect", "origin",
    "CORS", "CSP", "XSS", "CSRF", "SSRF", "JWT", "OAuth", "SAML", "LDAP", "YAML", "JSON", "XML",
    "regex", "unicode", "locale", "should", "must", "could", "never", "always", "when", "after",
    "before", "because", "unless", "while", "and", "or", "but", "with", "without", "from",
    "into", "on", "in", "of", "to", "is", "are", "was", "were", "seems", "fails", "works",
    "returns", "throws", "ignores", "accepts", "rejects", "expected", "actual", "behaviour",
    "naïve", "résumé", "façade", "Überprüfung", "日本語", "한국어", "中文", "ошибка",
];

#[rustfmt::skip]
const COMPONENTS: &[&str] = &[
    "parser", "scanner", "CLI", "web UI", "API", "docs", "installer", "auth module",
    "report generator", "plugin loader", "proxy", "spider", "rule engine", "Docker image",
    "Helm chart", "config loader", "i18n", "dashboard", "SARIF export", "CI workflow",
];
#[rustfmt::skip]
const PROBLEMS: &[&str] = &[
    "crashes on empty input", "leaks memory on large files", "ignores the proxy setting",
    "times out behind a corporate firewall", "reports a false positive",
    "breaks with Unicode paths", "misses reflected XSS", "fails on Windows",
    "shows the wrong severity", "does not honour --quiet",
    "hangs when the server closes the connection", "rejects valid certificates",
    "double-encodes query parameters",
];
#[rustfmt::skip]
const VERBS: &[&str] = &[
    "Fix", "Improve", "Refactor", "Document", "Add tests for", "Speed up", "Harden", "Simplify",
    "Remove", "Deprecate", "Support", "Translate",
];
#[rustfmt::skip]
const PACKAGES: &[&str] = &[
    "express", "lodash", "jackson-databind", "log4j-core", "requests", "urllib3", "serde",
    "tokio", "spring-boot", "django", "flask", "react", "webpack", "openssl", "axios",
    "golang.org/x/net", "rails", "nokogiri", "guava", "numpy",
];
#[rustfmt::skip]
const FEATURES: &[&str] = &[
    "SBOM export", "dark mode", "GraphQL scanning", "OpenAPI import", "rate limit options",
    "Kubernetes operator", "SARIF output", "plugin marketplace", "offline mode",
    "custom rules in YAML", "passkey login", "multi-tenant reports",
];
#[rustfmt::skip]
const UNICODE_TITLES: &[&str] = &[
    "Übersetzung der Oberfläche aktualisieren", "日本語ドキュメントの更新",
    "Mejorar la documentación del instalador", "Corriger l’encodage des caractères accentués",
    "Обновить зависимости", "修复扫描器在空输入时崩溃的问题", "설치 스크립트 오류 수정", "Ενημέρωση μεταφράσεων",
];

#[rustfmt::skip]
const CODE_LANGS: &[&str] = &[
    "", "bash", "json", "yaml", "python", "rust", "java", "javascript", "text",
];
#[rustfmt::skip]
const CODE_LINES: &[&str] = &[
    "$ scanner --target https://example.org --format json",
    "curl -sS -H 'Authorization: Bearer $TOKEN' https://api.example.org/v1/items",
    "{\"error\": \"invalid token\", \"status\": 401}", "Traceback (most recent call last):",
    "  File \"scanner/core.py\", line 212, in run",
    "thread 'main' panicked at src/parser.rs:88:14:",
    "java.lang.NullPointerException: Cannot invoke \"String.length()\"",
    "    at org.example.Parser.parse(Parser.java:57)",
    "rules:\n  - id: sql-injection\n    severity: high",
    "docker run --rm -v \"$PWD:/src\" example/scanner:latest",
    "const res = await fetch(url, { credentials: 'include' });",
    "let config = Config::load(\"scanner.toml\")?;",
    "SELECT * FROM users WHERE name = '' OR '1'='1';",
    "<script>alert(document.domain)</script>",
    "Expected: 200 OK, got: 500 Internal Server Error",
];
#[rustfmt::skip]
const HEADINGS: &[&str] = &[
    "Description", "Steps to reproduce", "Expected behaviour", "Actual behaviour",
    "Environment", "Logs", "Possible fix", "Additional context", "Proposal", "Motivation",
    "Alternatives considered", "Checklist", "Impact",
];

#[rustfmt::skip]
const LICENSES: &[&str] = &[
    "MIT", "Apache-2.0", "GPL-3.0", "BSD-3-Clause", "", "AGPL-3.0", "MPL-2.0", "CC-BY-SA-4.0",
    "LGPL-2.1", "BSD-2-Clause", "Unlicense",
];
#[rustfmt::skip]
const TOPICS: &[&str] = &[
    "security", "appsec", "owasp", "scanner", "pentest", "devsecops", "sast", "dast", "fuzzing",
    "ctf", "cheatsheet", "threat-modeling", "sbom", "supply-chain", "crypto", "authentication",
    "kubernetes", "docker", "api-security", "web-security", "education", "vulnerability",
    "hacktoberfest", "privacy", "compliance",
];
#[rustfmt::skip]
const LANGUAGES: &[&str] = &[
    "Python", "JavaScript", "TypeScript", "Java", "Go", "Rust", "C", "C++", "Shell", "HTML",
    "CSS", "Ruby", "PHP", "Kotlin", "C#", "Dockerfile", "Makefile", "Lua",
];
#[rustfmt::skip]
const REPO_WORDS: &[&str] = &[
    "scanner", "shield", "guard", "lint", "fuzz", "proxy", "vault", "gate", "audit", "scope",
    "probe", "sentry", "watch", "trace", "map", "forge", "kit", "box", "hub", "lab", "core",
    "cli", "web", "api", "docs", "rules", "policies", "bench", "ctf", "wiki", "cheatsheets",
    "juice", "zap", "dragon", "falcon", "badger", "dependency", "secrets", "headers", "crypto",
    "auth", "sso", "jwt", "sbom", "threat", "model", "honeypot", "sandbox",
];
#[rustfmt::skip]
const REPO_EXTS: &[&str] = &[
    "", "-extensions", "-ctf", ".js", ".py", "-rs", "-action", "-operator", "-docs", "-go",
];

const LABEL_BASE: &[(&str, &str)] = &[
    ("bug", "Something isn't working"),
    ("enhancement", "New feature or request"),
    (
        "documentation",
        "Improvements or additions to documentation",
    ),
    ("good first issue", "Good for newcomers"),
    ("help wanted", "Extra attention is needed"),
    (
        "dependencies",
        "Pull requests that update a dependency file",
    ),
    ("security", "Security-sensitive change"),
    ("question", "Further information is requested"),
    ("duplicate", "This issue or pull request already exists"),
    ("wontfix", "This will not be worked on"),
    ("invalid", "This doesn't seem right"),
    ("priority: high", ""),
    ("priority: low", ""),
    ("status: needs triage", ""),
    ("status: in progress", ""),
    ("type: bug", ""),
    ("type: feature", ""),
    ("🐛 bug", "Emoji-prefixed variant"),
    ("✨ feature", ""),
    ("ドキュメント", "日本語のドキュメント"),
    (
        "amélioration",
        "Amélioration d'une fonctionnalité existante",
    ),
    ("нужна помощь", ""),
    ("stale", "No activity for a while"),
    ("hacktoberfest", ""),
    ("breaking change", ""),
    ("performance", ""),
    ("ci", "Continuous integration"),
    ("i18n", "Internationalisation"),
    ("needs reproduction", ""),
    ("false positive", ""),
];
#[rustfmt::skip]
const LABEL_PREFIXES: &[&str] = &[
    "area/", "component: ", "scope:", "lang/", "kind/", "team/", "platform: ", "rule: ",
];
#[rustfmt::skip]
const COLORS: &[&str] = &[
    "d73a4a", "a2eeef", "0075ca", "7057ff", "008672", "e4e669", "d876e3", "cfd3d7", "ffffff",
    "0366d6", "fbca04", "b60205", "0e8a16", "5319e7", "1d76db", "c5def5", "bfdadc", "f9d0c4",
    "FEF2C0", "BFD4F2", "ededed", "000000", "ff7619", "84b6eb",
];

#[rustfmt::skip]
const PROJECT_ADJ: &[&str] = &[
    "Secure", "Threat", "Dependency", "Juice", "Web", "Mobile", "Cloud", "Open", "Zero",
    "Crypto", "Code", "API", "Supply", "Serverless", "Container", "Identity", "Privacy",
    "Honey", "Fuzzy", "Red", "Blue", "Purple", "Modern", "Top", "Software",
];
#[rustfmt::skip]
const PROJECT_NOUN: &[&str] = &[
    "Headers", "Dragon", "Check", "Shop", "Testing Guide", "Verification Standard",
    "Cheat Sheets", "Scanner", "Top Ten", "Cornucopia", "Knowledge Base", "Maturity Model",
    "Toolkit", "Defender", "Goat", "Sandbox", "Proxy", "Benchmark", "Playbook", "Radar",
    "Inventory", "Policy Engine", "Wiki", "Academy", "Lab",
];
#[rustfmt::skip]
const PROJECT_UNICODE: &[(&str, &str)] = &[
    ("Sécurité Ouverte", "securite-ouverte"), ("Café Scanner", "cafe-scanner"),
    ("Überprüfer", "uberprufer"), ("安全 Toolkit", "anquan-toolkit"),
    ("Zoë Fuzzer", "zoe-fuzzer"), ("Guía de Pruebas", "guia-de-pruebas"),
    ("Проверка кода", "proverka-koda"), ("セキュア設計", "secure-design-jp"),
];

#[rustfmt::skip]
const COMMITTEES: &[(&str, &str)] = &[
    ("Chapter", "chapter"), ("Project", "project"), ("Events", "events"),
    ("Membership", "membership"), ("Education", "education"), ("Governance", "governance"),
    ("Compliance", "compliance"), ("Diversité & Inclusion", "diversity-inclusion"),
    ("Outreach", "outreach"), ("Nominations", "nominations"), ("Finance", "finance"),
    ("Technology", "technology"), ("Conférences", "conferences"), ("Industry", "industry"),
    ("Global Board Liaison", "global-board-liaison"),
];

#[rustfmt::skip]
const SPONSORS: &[&str] = &[
    "Acme", "Globex Security", "Initech", "Hooli", "Umbrella", "Contoso", "Fabrikam",
    "Northwind", "Müller Sicherheit GmbH", "Société Sécure", "サイバー株式会社", "Tyrell", "Cyberdyne",
    "Aperture", "Black Mesa", "Pied Piper", "Massive Dynamic", "Oscorp", "Vandelay", "Wonka",
    "Nakatomi", "Stark", "Wayne", "Soylent", "Dunder Mifflin", "Gringotts", "Monsters Inc",
    "Ollivanders", "Bluth", "Prestige Worldwide",
];

#[rustfmt::skip]
const PARTNERS: &[&str] = &[
    "CloudCon", "DevOpsDays", "BSides", "SecTor", "OpenSSF Day", "KubeCon",
];

// ---------------------------------------------------------------------------------
// Helpers

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.random_range(0..items.len())]
}

/// An index below `n`, skewed towards 0 (larger `power`, stronger skew).
fn skew(rng: &mut Rng, n: usize, power: f64) -> usize {
    let u: f64 = rng.random();
    ((u.powf(power) * n as f64) as usize).min(n - 1)
}

/// A Pareto sample ≥ 1 with tail index `alpha`, capped.
fn pareto(rng: &mut Rng, alpha: f64, cap: f64) -> f64 {
    let u: f64 = rng.random();
    (1.0 / (1.0 - u).powf(1.0 / alpha)).min(cap)
}

fn chance(rng: &mut Rng, p: f64) -> bool {
    rng.random_bool(p)
}

/// A timestamp in `[lo, hi)`, denser towards `hi` (activity grows over time).
fn when(rng: &mut Rng, lo: i64, hi: i64) -> i64 {
    if hi <= lo {
        return lo;
    }
    let u: f64 = rng.random();
    lo + ((hi - lo) as f64 * u.powf(0.75)) as i64
}

/// A timestamp after `t`, usually soon after, never past `limit` (unless `t` is).
fn later(rng: &mut Rng, t: i64, limit: i64) -> i64 {
    let span = (limit - t).max(0);
    let u: f64 = rng.random();
    t + (span as f64 * u.powf(3.0)) as i64
}

/// Splits `total` among items by weight (cumulative rounding: the parts sum to `total`).
fn apportion(total: usize, weights: &[f64]) -> Vec<usize> {
    let sum: f64 = weights.iter().sum();
    let mut out = Vec::with_capacity(weights.len());
    let mut cumulative = 0.0;
    let mut given = 0usize;
    for w in weights {
        cumulative += w;
        let upto = if sum > 0.0 {
            ((cumulative / sum) * total as f64).round() as usize
        } else {
            0
        };
        let upto = upto.min(total);
        out.push(upto - given.min(upto));
        given = given.max(upto);
    }
    if let Some(last) = out.last_mut() {
        *last += total - given;
    }
    out
}

fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let folded = match c.to_lowercase().next().unwrap_or(c) {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
            'ç' | 'č' => "c",
            'è' | 'é' | 'ê' | 'ë' | 'ě' => "e",
            'ì' | 'í' | 'î' | 'ï' | 'ı' => "i",
            'ñ' => "n",
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ő' => "o",
            'ù' | 'ú' | 'û' | 'ü' | 'ű' => "u",
            'ý' | 'ÿ' => "y",
            'ß' => "ss",
            'ł' => "l",
            'š' | 'ş' | 'ș' => "s",
            'ř' => "r",
            'ž' => "z",
            'ğ' => "g",
            'ț' => "t",
            _ => "",
        };
        if !folded.is_empty() {
            out.push_str(folded);
        } else if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// Makes `candidate` unique (case-insensitively) among the keys already in `seen`,
/// appending `-2`, `-3`, ... when needed.
fn unique(seen: &mut HashSet<String>, candidate: String) -> String {
    if seen.insert(candidate.to_lowercase()) {
        return candidate;
    }
    let mut n = 2;
    loop {
        let next = format!("{candidate}-{n}");
        if seen.insert(next.to_lowercase()) {
            return next;
        }
        n += 1;
    }
}

fn push<T>(records: &mut Records<T>, file: &'static str, record: T) {
    let index = records.len();
    records.push((synthetic_origin(file, index), record));
}

/// Picks an enum value: the first records walk through every value, so even a small
/// dataset holds each; later ones follow `weights`.
fn enum_value<T: Copy>(rng: &mut Rng, index: usize, all: &[T], weights: &[u32]) -> T {
    if index < all.len() {
        return all[index];
    }
    let total: u32 = weights.iter().sum();
    let mut x = rng.random_range(0..total);
    for (value, &w) in all.iter().zip(weights) {
        if x < w {
            return *value;
        }
        x -= w;
    }
    all[all.len() - 1]
}

fn capitalize_into(out: &mut String, word: &str) {
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
}

fn sentence(rng: &mut Rng, out: &mut String) {
    let n = rng.random_range(6..15);
    for i in 0..n {
        let word = pick(rng, WORDS);
        if i == 0 {
            capitalize_into(out, word);
            continue;
        }
        out.push(' ');
        match rng.random_range(0..40u32) {
            0 => {
                out.push('`');
                out.push_str(word);
                out.push('`');
            }
            1 => {
                out.push_str("**");
                out.push_str(word);
                out.push_str("**");
            }
            2 => {
                let _ = write!(out, "[{word}](https://example.org/docs/{})", slug(word));
            }
            _ => out.push_str(word),
        }
    }
    out.push('.');
}

/// Appends Markdown of about `target` bytes: headings, paragraphs, lists, task lists,
/// quotes and fenced code blocks.
fn markdown(rng: &mut Rng, out: &mut String, target: usize) {
    let start = out.len();
    let mut first = true;
    while out.len() - start < target {
        if !first {
            out.push_str("\n\n");
        }
        let kind = if first { 0 } else { rng.random_range(0..10u32) };
        first = false;
        match kind {
            0 | 1 => {
                let _ = write!(out, "## {}\n\n", pick(rng, HEADINGS));
                for _ in 0..rng.random_range(1..4) {
                    sentence(rng, out);
                    out.push(' ');
                }
                out.pop();
            }
            2..=4 => {
                for _ in 0..rng.random_range(2..5) {
                    sentence(rng, out);
                    out.push(' ');
                }
                out.pop();
            }
            5 | 6 => {
                let ordered = chance(rng, 0.4);
                for i in 0..rng.random_range(2..6) {
                    if ordered {
                        let _ = write!(out, "{}. ", i + 1);
                    } else {
                        out.push_str("- ");
                    }
                    sentence(rng, out);
                    out.push('\n');
                }
                out.pop();
            }
            7 => {
                let _ = writeln!(out, "```{}", pick(rng, CODE_LANGS));
                for _ in 0..rng.random_range(2..8) {
                    out.push_str(pick(rng, CODE_LINES));
                    out.push('\n');
                }
                out.push_str("```");
            }
            8 => {
                for _ in 0..rng.random_range(2..5) {
                    out.push_str(if chance(rng, 0.5) { "- [x] " } else { "- [ ] " });
                    sentence(rng, out);
                    out.push('\n');
                }
                out.pop();
            }
            _ => {
                out.push_str("> ");
                sentence(rng, out);
            }
        }
    }
    out.push('\n');
}

// ---------------------------------------------------------------------------------
// The generator

/// What is decided for a repository before it is generated.
struct RepoPlan {
    size: f64,
    created: i64,
    issues: usize,
    milestones: usize,
    releases: usize,
}

/// A member as the other tables need it.
struct MemberInfo {
    login: String,
    name: String,
}

struct Synth {
    n: Counts,
    rng: Rng,
    ds: Dataset,
    members: Vec<MemberInfo>,
}

impl Synth {
    fn new(n: Counts, seed: u64) -> Synth {
        Synth {
            n,
            rng: Rng::seed_from_u64(seed),
            ds: Dataset::default(),
            members: Vec::new(),
        }
    }

    fn run(mut self) -> Dataset {
        self.organizations();
        self.members();
        self.labels();
        self.repositories();
        self.chapters();
        self.committees();
        self.projects();
        self.events();
        self.sponsors();
        self.snapshots();
        self.ds
    }

    /// A display name and its ASCII form (for logins).
    fn person(&mut self) -> (String, String) {
        let rng = &mut self.rng;
        if chance(rng, 0.2) {
            let (f, fa) = pick(rng, CJK_FAMILY);
            let (g, ga) = pick(rng, CJK_GIVEN);
            (format!("{f}{g}"), format!("{fa}-{ga}"))
        } else {
            let (g, ga) = pick(rng, GIVEN);
            let (f, fa) = pick(rng, FAMILY);
            (format!("{g} {f}"), format!("{ga}-{fa}"))
        }
    }

    /// A member for an author or contributor field: active members are picked more.
    fn member_index(&mut self, power: f64) -> usize {
        skew(&mut self.rng, self.members.len(), power)
    }

    fn leaders(&mut self, max: usize) -> Vec<Leader> {
        let count = skew(&mut self.rng, max + 1, 0.8);
        (0..count)
            .map(|_| {
                if chance(&mut self.rng, 0.7) {
                    let i = self.member_index(1.5);
                    let m = &self.members[i];
                    let name = if m.name.is_empty() {
                        m.login.clone()
                    } else {
                        m.name.clone()
                    };
                    Leader {
                        name,
                        login: Some(m.login.clone()),
                    }
                } else {
                    Leader {
                        name: self.person().0,
                        login: None,
                    }
                }
            })
            .collect()
    }

    fn organizations(&mut self) {
        let mut seen = HashSet::new();
        let n = self.n.organizations;
        for i in 0..n {
            let rng = &mut self.rng;
            let word = pick(rng, ORG_WORDS);
            let suffix = pick(rng, ORG_SUFFIXES);
            let login = unique(&mut seen, format!("{word}{suffix}"));
            let mut name = String::new();
            capitalize_into(&mut name, word);
            name.push_str(match rng.random_range(0..6u32) {
                0 => " Labs",
                1 => " Foundation",
                2 => " Sécurité",
                3 => " e.V.",
                4 => " セキュリティ研究会",
                _ => " Project",
            });
            // About one in seven is not affiliated (at least one in any dataset).
            let is_affiliated = !(i % 7 == 6 || i == n - 1);
            let created = when(rng, START - 4 * 365 * DAY, END - 365 * DAY);
            let updated = later(rng, created, END);
            let city = pick(rng, &CITIES[..30]);
            push(
                &mut self.ds.organizations,
                "organizations.jsonl",
                Organization {
                    url: if chance(rng, 0.5) {
                        format!("https://github.com/{login}")
                    } else {
                        String::new()
                    },
                    avatar_url: format!(
                        "https://avatars.githubusercontent.com/u/{}?v=4",
                        1_000_000 + i * 7919
                    ),
                    login,
                    company: if chance(rng, 0.6) {
                        name.clone()
                    } else {
                        String::new()
                    },
                    name,
                    location: format!("{}, {}", city.0, city.2),
                    description: format!(
                        "Open-source {} for application security: tools, guides and standards.",
                        pick(rng, TOPICS)
                    ),
                    followers_count: (pareto(rng, 0.9, 50_000.0) * 10.0) as u64,
                    is_affiliated,
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    fn members(&mut self) {
        let n = self.n.members;
        let mut seen = HashSet::with_capacity(n);
        // Locations: "City, Country" of the first cities, plus a few free-form ones.
        let locations: Vec<String> = CITIES[..48]
            .iter()
            .map(|c| format!("{}, {}", c.0, c.2))
            .chain(EXTRA_LOCATIONS.iter().map(|s| s.to_string()))
            .collect();
        self.members.reserve(n);
        self.ds.members.reserve(n);
        for i in 0..n {
            let (name, ascii) = self.person();
            let rng = &mut self.rng;
            let (first, last) = ascii.split_once('-').unwrap_or((&ascii, ""));
            let base = match rng.random_range(0..8u32) {
                0 => format!("{first}{last}"),
                1 => format!("{first}-{last}"),
                2 => format!("{}{last}", &first[..1]),
                3 => format!("{last}-{}", &first[..1]),
                4 => format!("{first}{last}-sec"),
                5 => {
                    let mut s = String::new();
                    capitalize_into(&mut s, &first[..1]);
                    capitalize_into(&mut s, last);
                    s
                }
                6 => format!("{first}{}", rng.random_range(1..100u32)),
                _ => format!("0x{first}"),
            };
            let login = if seen.insert(base.to_lowercase()) {
                base
            } else {
                unique(&mut seen, format!("{base}-{}", i + 1))
            };
            let display = if chance(rng, 0.1) {
                String::new()
            } else {
                name
            };
            let created = when(rng, START - 6 * 365 * DAY, END);
            let updated = later(rng, created, END);
            // A few timestamps carry microseconds, as real exports sometimes do.
            let fraction = if chance(rng, 0.01) {
                rng.random_range(1..1_000_000)
            } else {
                0
            };
            let company = if chance(rng, 0.45) {
                String::new()
            } else {
                COMPANIES[skew(rng, COMPANIES.len(), 1.8)].to_string()
            };
            let location = if chance(rng, 0.35) {
                String::new()
            } else {
                locations[skew(rng, locations.len(), 1.6)].clone()
            };
            let followers = (pareto(rng, 1.2, 100_000.0) - 1.0) as u64 * 3;
            let member = Member {
                avatar_url: format!(
                    "https://avatars.githubusercontent.com/u/{}?v=4",
                    rng.random_range(1..200_000_000u64)
                ),
                url: if chance(rng, 0.5) {
                    format!("https://github.com/{login}")
                } else {
                    String::new()
                },
                bio: if chance(rng, 0.6) {
                    String::new()
                } else {
                    pick(rng, BIOS).to_string()
                },
                company,
                location,
                title: if chance(rng, 0.5) {
                    String::new()
                } else {
                    pick(rng, TITLES).to_string()
                },
                twitter_username: if chance(rng, 0.2) {
                    format!("{}_{}", first, rng.random_range(1..1000u32))
                } else {
                    String::new()
                },
                followers_count: followers,
                following_count: (pareto(rng, 1.5, 5_000.0) - 1.0) as u64 * 2,
                public_repositories_count: (pareto(rng, 1.3, 2_000.0) - 1.0) as u64 * 2,
                created_at: ts(created),
                updated_at: Ts(updated * 1_000_000 + fraction),
                login: login.clone(),
                name: display.clone(),
            };
            self.members.push(MemberInfo {
                login,
                name: display,
            });
            push(&mut self.ds.members, "members.jsonl", member);
        }
    }

    fn labels(&mut self) {
        let mut seen = HashSet::new();
        for i in 0..self.n.labels {
            let rng = &mut self.rng;
            let (name, description) = if let Some(&(name, description)) = LABEL_BASE.get(i) {
                (name.to_string(), description.to_string())
            } else {
                let prefix = pick(rng, LABEL_PREFIXES);
                let word = pick(rng, REPO_WORDS);
                let description = if chance(rng, 0.5) {
                    String::new()
                } else {
                    format!(
                        "Issues about the {word} {}",
                        prefix.trim_end_matches([':', '/', ' '])
                    )
                };
                (format!("{prefix}{word}"), description)
            };
            let name = unique(&mut seen, name);
            let created = when(rng, START, END);
            let updated = later(rng, created, END);
            push(
                &mut self.ds.labels,
                "labels.jsonl",
                Label {
                    name,
                    color: Color(COLORS[skew(rng, COLORS.len(), 1.5)].to_string()),
                    description,
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    fn repositories(&mut self) {
        let n = self.n.repositories;
        let rng = &mut self.rng;
        // Repositories per organization: Zipf-like.
        let org_weights: Vec<f64> = (0..self.ds.organizations.len())
            .map(|i| 1.0 / (i as f64 + 1.0).powf(0.9))
            .collect();
        let per_org = apportion(n, &org_weights);
        // One "size" per repository drives stars, forks, issues, releases, milestones.
        let size: Vec<f64> = (0..n).map(|_| pareto(rng, 1.1, 5_000.0)).collect();
        let created: Vec<i64> = (0..n).map(|_| when(rng, START, END - 30 * DAY)).collect();
        // Older repositories have had longer to gather issues and releases.
        let age: Vec<f64> = created
            .iter()
            .map(|&c| (END - c) as f64 / (END - START) as f64)
            .collect();
        let issue_w: Vec<f64> = (0..n)
            .map(|r| {
                if chance(rng, 0.12) {
                    0.0
                } else {
                    size[r].powf(0.9) * age[r] * rng.random_range(0.3..1.7)
                }
            })
            .collect();
        let milestone_w: Vec<f64> = (0..n)
            .map(|r| {
                if chance(rng, 0.4) {
                    size[r].powf(0.5) * age[r]
                } else {
                    0.0
                }
            })
            .collect();
        let release_w: Vec<f64> = (0..n)
            .map(|r| {
                if chance(rng, 0.7) {
                    size[r].powf(0.7) * age[r]
                } else {
                    0.0
                }
            })
            .collect();
        let issues = apportion(self.n.issues, &issue_w);
        let milestones = apportion(self.n.milestones, &milestone_w);
        let releases = apportion(self.n.releases, &release_w);

        self.ds.repositories.reserve(n);
        self.ds.issues.reserve(self.n.issues);
        self.ds.milestones.reserve(self.n.milestones);
        self.ds.releases.reserve(self.n.releases);
        self.ds.repository_contributors.reserve(n * 14);

        let mut seen = HashSet::with_capacity(n);
        let mut r = 0;
        for (org_index, &count) in per_org.iter().enumerate() {
            let org = self.ds.organizations[org_index].1.login.clone();
            for _ in 0..count {
                let plan = RepoPlan {
                    size: size[r],
                    created: created[r],
                    issues: issues[r],
                    milestones: milestones[r],
                    releases: releases[r],
                };
                self.repository(&org, &mut seen, plan);
                r += 1;
            }
        }
    }

    fn repository(&mut self, org: &str, seen: &mut HashSet<String>, plan: RepoPlan) {
        let RepoPlan {
            size,
            created,
            issues,
            milestones,
            releases,
        } = plan;
        let rng = &mut self.rng;
        let mut name = String::new();
        let first = pick(rng, REPO_WORDS);
        match rng.random_range(0..5u32) {
            0 => name.push_str(first),
            1 | 2 => {
                name.push_str(first);
                name.push('-');
                name.push_str(pick(rng, REPO_WORDS));
            }
            3 => {
                capitalize_into(&mut name, first);
                name.push_str(pick(rng, REPO_EXTS));
            }
            _ => {
                name.push_str(first);
                name.push_str(pick(rng, REPO_EXTS));
                name.push('_');
                name.push_str(pick(rng, REPO_WORDS));
            }
        }
        let full = unique(seen, format!("{org}/{name}"));
        let name = full[org.len() + 1..].to_string();

        let stars = ((size - 1.0) * 20.0 * rng.random_range(0.5..1.5)) as u64;
        let forks = (stars as f64 * rng.random_range(0.05..0.35)) as u64;
        let subscribers =
            (stars as f64 * rng.random_range(0.01..0.05)) as u64 + rng.random_range(0..4);
        let commits = (pareto(rng, 0.9, 200_000.0) * 5.0) as u64;
        let is_archived = chance(rng, 0.08);
        let pushed = if chance(rng, 0.03) {
            None
        } else {
            Some(later(rng, created, END))
        };
        let topics: Vec<String> = (0..skew(rng, 6, 1.3))
            .map(|_| pick(rng, TOPICS).to_string())
            .fold(Vec::new(), |mut v, t| {
                if !v.contains(&t) {
                    v.push(t);
                }
                v
            });
        let languages: Vec<String> = (0..rng.random_range(1..5))
            .map(|_| LANGUAGES[skew(rng, LANGUAGES.len(), 1.5)].to_string())
            .fold(Vec::new(), |mut v, t| {
                if !v.contains(&t) {
                    v.push(t);
                }
                v
            });
        let description = match rng.random_range(0..20u32) {
            0 | 1 => None,
            2 => Some(String::new()),
            3 => Some(format!("{} — {}", name, pick(rng, UNICODE_TITLES))),
            _ => Some(format!(
                "A {} {} for {}.",
                pick(rng, TOPICS),
                pick(rng, REPO_WORDS),
                pick(rng, FEATURES)
            )),
        };
        let license = LICENSES[skew(rng, LICENSES.len(), 1.7)].to_string();
        let url = if chance(rng, 0.8) {
            format!("https://github.com/{org}/{name}")
        } else {
            String::new()
        };

        // Contributors: a few to a few dozen, bigger repositories have more.
        let wanted =
            (2 + (size.ln() * 3.0) as usize + (30.0 * rng.random::<f64>().powi(3)) as usize)
                .min(MAX_CONTRIBUTORS)
                .min(self.members.len());
        let mut contributors: Vec<usize> = Vec::with_capacity(wanted);
        while contributors.len() < wanted {
            let m = skew(&mut self.rng, self.members.len(), 2.0);
            if !contributors.contains(&m) {
                contributors.push(m);
            }
        }
        let mut counts: Vec<u64> = contributors
            .iter()
            .map(|_| (pareto(&mut self.rng, 0.8, 20_000.0)) as u64)
            .collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        for (m, c) in contributors.iter().zip(&counts) {
            push(
                &mut self.ds.repository_contributors,
                "repository_contributors.jsonl",
                RepositoryContributor {
                    organization: org.to_string(),
                    repository: name.clone(),
                    member: self.members[*m].login.clone(),
                    contributions_count: *c,
                },
            );
        }

        let open = self.issues(org, &name, created, issues);
        self.milestones(org, &name, created, milestones);
        self.releases(org, &name, created, releases);

        let rng = &mut self.rng;
        let updated =
            later(rng, pushed.unwrap_or(created).max(created), END).max(pushed.unwrap_or(0));
        push(
            &mut self.ds.repositories,
            "repositories.jsonl",
            Repository {
                organization: org.to_string(),
                name,
                description,
                url,
                commits_count: commits,
                contributors_count: wanted as u64,
                forks_count: forks,
                open_issues_count: open,
                stars_count: stars,
                subscribers_count: subscribers,
                is_archived,
                license,
                topics,
                languages,
                pushed_at: pushed.map(ts),
                created_at: ts(created),
                updated_at: ts(updated),
            },
        );
    }

    fn author(&mut self, p_none: f64) -> Option<String> {
        if chance(&mut self.rng, p_none) {
            None
        } else {
            let i = self.member_index(2.5);
            Some(self.members[i].login.clone())
        }
    }

    /// Sorted creation times of `count` records of a repository created at `created`.
    fn times(&mut self, created: i64, count: usize) -> Vec<i64> {
        let mut times: Vec<i64> = (0..count)
            .map(|_| when(&mut self.rng, created, END))
            .collect();
        times.sort_unstable();
        times
    }

    /// Returns the number of open issues.
    fn issues(&mut self, org: &str, repo: &str, repo_created: i64, count: usize) -> u64 {
        let times = self.times(repo_created, count);
        let n_labels = self.ds.labels.len();
        let mut number = 0u64;
        let mut open = 0;
        for created in times {
            let rng = &mut self.rng;
            // Pull requests share the numbering, so issue numbers have gaps.
            number += 1 + if chance(rng, 0.4) {
                rng.random_range(1..4)
            } else {
                0
            };
            let age = END - created;
            let closed = chance(rng, if age > 365 * DAY { 0.85 } else { 0.5 });
            let (state, closed_at, updated) = if closed {
                let closed_at = later(rng, created, END);
                let updated = later(rng, closed_at, END);
                (State::Closed, Some(closed_at), updated)
            } else {
                open += 1;
                (State::Open, None, later(rng, created, END))
            };
            let title = match rng.random_range(0..12u32) {
                0..=3 => {
                    let mut t = String::new();
                    capitalize_into(&mut t, pick(rng, COMPONENTS));
                    t.push(' ');
                    t.push_str(pick(rng, PROBLEMS));
                    t
                }
                4 | 5 => format!("{} the {}", pick(rng, VERBS), pick(rng, COMPONENTS)),
                6 => format!(
                    "Update dependency {} to v{}.{}.{}",
                    pick(rng, PACKAGES),
                    rng.random_range(1..20u32),
                    rng.random_range(0..30u32),
                    rng.random_range(0..15u32)
                ),
                7 => format!("Feature request: {}", pick(rng, FEATURES)),
                8 => format!("[Bug] {}: {}", pick(rng, COMPONENTS), pick(rng, PROBLEMS)),
                9 => pick(rng, UNICODE_TITLES).to_string(),
                10 => format!(
                    "Docs: explain {} in the {}",
                    pick(rng, FEATURES),
                    pick(rng, COMPONENTS)
                ),
                _ => format!("Question about {}", pick(rng, FEATURES)),
            };
            let body = if chance(rng, 0.03) {
                String::new()
            } else {
                let target = 500 + (3_300.0 * rng.random::<f64>().powf(2.5)) as usize;
                let mut body = String::with_capacity(target + 400);
                markdown(rng, &mut body, target);
                body
            };
            let label_count = match rng.random_range(0..10u32) {
                0..=2 => 0,
                3..=6 => 1,
                7 | 8 => 2,
                _ => 3,
            }
            .min(n_labels);
            let mut picked: [usize; 3] = [usize::MAX; 3];
            let mut k = 0;
            while k < label_count {
                let l = skew(rng, n_labels, 3.0);
                if !picked[..k].contains(&l) {
                    picked[k] = l;
                    k += 1;
                }
            }
            let labels = picked[..label_count]
                .iter()
                .map(|&l| self.ds.labels[l].1.name.clone())
                .collect();
            let author = self.author(0.03);
            push(
                &mut self.ds.issues,
                "issues.jsonl",
                Issue {
                    organization: org.to_string(),
                    repository: repo.to_string(),
                    number,
                    title,
                    state,
                    body,
                    author,
                    url: format!("https://github.com/{org}/{repo}/issues/{number}"),
                    labels,
                    created_at: ts(created),
                    updated_at: ts(updated),
                    closed_at: closed_at.map(ts),
                },
            );
        }
        open
    }

    fn milestones(&mut self, org: &str, repo: &str, repo_created: i64, count: usize) {
        let times = self.times(repo_created, count);
        let (mut major, mut minor) = (0u32, 1u32);
        for (i, created) in times.into_iter().enumerate() {
            let rng = &mut self.rng;
            let number = i as u64 + 1;
            let title = match rng.random_range(0..4u32) {
                0 | 1 => {
                    if chance(rng, 0.2) {
                        major += 1;
                        minor = 0;
                    } else {
                        minor += 1;
                    }
                    format!("v{major}.{minor}")
                }
                2 => format!("Sprint {number}"),
                _ => {
                    let year =
                        chrono::DateTime::from_timestamp(created, 0).map_or(2020, |d| d.year());
                    format!("Q{} {year}", rng.random_range(1..5u32))
                }
            };
            let due_on = if chance(rng, 0.3) {
                None
            } else {
                Some(created + rng.random_range(14..120i64) * DAY)
            };
            let closed = match due_on {
                Some(due) if due < END - 30 * DAY => chance(rng, 0.9),
                Some(_) => chance(rng, 0.1),
                None => chance(rng, 0.5),
            };
            let updated = later(rng, created, END);
            let body = if chance(rng, 0.3) {
                String::new()
            } else {
                format!(
                    "Everything planned for **{title}**.\n\n- {}\n- {}\n",
                    pick(rng, FEATURES),
                    pick(rng, PROBLEMS)
                )
            };
            let open_count = (pareto(rng, 1.5, 500.0) - 1.0) as u64;
            let closed_count = (pareto(rng, 1.0, 2_000.0) - 1.0) as u64 * 2;
            let author = self.author(0.05);
            push(
                &mut self.ds.milestones,
                "milestones.jsonl",
                Milestone {
                    organization: org.to_string(),
                    repository: repo.to_string(),
                    number,
                    title,
                    state: if closed { State::Closed } else { State::Open },
                    body,
                    author,
                    url: format!("https://github.com/{org}/{repo}/milestone/{number}"),
                    open_issues_count: if closed { 0 } else { open_count },
                    closed_issues_count: closed_count,
                    due_on: due_on.map(ts),
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    fn releases(&mut self, org: &str, repo: &str, repo_created: i64, count: usize) {
        let times = self.times(repo_created, count);
        let rng = &mut self.rng;
        // Tag style per repository; versions only grow, so tags never repeat.
        let style = rng.random_range(0..40u32);
        let components: Vec<&str> = (0..rng.random_range(1..4))
            .map(|_| pick(rng, REPO_WORDS))
            .collect();
        let (mut major, mut minor, mut patch) = if chance(rng, 0.5) {
            (0u32, 1u32, 0u32)
        } else {
            (1, 0, 0)
        };
        let mut first = true;
        for created in times {
            let rng = &mut self.rng;
            if !first {
                match rng.random_range(0..20u32) {
                    0 => {
                        major += 1;
                        minor = 0;
                        patch = 0;
                    }
                    1..=6 => {
                        minor += 1;
                        patch = 0;
                    }
                    _ => patch += 1,
                }
            }
            first = false;
            let version = format!("{major}.{minor}.{patch}");
            let pre = chance(rng, 0.1);
            let pre_suffix = if pre {
                format!(
                    "-{}.{}",
                    pick(rng, &["rc", "beta", "alpha"]),
                    rng.random_range(1..4u32)
                )
            } else {
                String::new()
            };
            let tag = match style {
                0..=19 => format!("v{version}{pre_suffix}"),
                20..=35 => format!("{version}{pre_suffix}"),
                36 | 37 => format!("release/{version}{pre_suffix}"),
                _ => format!("{}/v{version}{pre_suffix}", pick(rng, &components)),
            };
            let unpublished = chance(rng, 0.05);
            let published = if unpublished {
                None
            } else {
                Some((created + rng.random_range(0..3 * DAY)).min(END))
            };
            let name = match rng.random_range(0..10u32) {
                0 => String::new(),
                1..=4 => tag.clone(),
                5..=7 => format!("Release {version}{pre_suffix}"),
                8 => format!(
                    "{version} — {}",
                    pick(rng, &["Zürich", "東京", "São Paulo", "Kraków", "Αθήνα"])
                ),
                _ => format!("{} {version}", pick(rng, PROJECT_NOUN)),
            };
            let description = if chance(rng, 0.2) {
                String::new()
            } else {
                let mut d = String::from("## What's changed\n\n");
                for _ in 0..rng.random_range(1..6) {
                    let _ = writeln!(
                        d,
                        "- {} {} (#{})",
                        pick(rng, VERBS),
                        pick(rng, COMPONENTS),
                        rng.random_range(1..5_000u32)
                    );
                }
                d
            };
            let url = if chance(rng, 0.7) {
                format!("https://github.com/{org}/{repo}/releases/tag/{tag}")
            } else {
                String::new()
            };
            let is_draft = unpublished && chance(rng, 0.8);
            let author = self.author(0.05);
            push(
                &mut self.ds.releases,
                "releases.jsonl",
                Release {
                    organization: org.to_string(),
                    repository: repo.to_string(),
                    tag_name: tag,
                    name,
                    description,
                    author,
                    url,
                    is_draft,
                    is_pre_release: pre,
                    published_at: published.map(ts),
                    created_at: ts(created),
                },
            );
        }
    }

    fn chapters(&mut self) {
        let mut seen = HashSet::new();
        for i in 0..self.n.chapters {
            let rng = &mut self.rng;
            let (city, variant) = if let Some(&city) = CITIES.get(i) {
                (city, None)
            } else {
                (pick(rng, CITIES), Some(pick(rng, CHAPTER_SUFFIXES)))
            };
            let (name, slug_part) = match variant {
                None => (city.0.to_string(), city.1.to_string()),
                Some((s, ss)) => (format!("{} {s}", city.0), format!("{}-{ss}", city.1)),
            };
            let key = unique(&mut seen, format!("www-chapter-{slug_part}"));
            let (latitude, longitude) = if chance(rng, 0.1) {
                (None, None)
            } else {
                let jitter = if variant.is_some() { 0.05 } else { 0.0 };
                let lat = city.4 + rng.random_range(-1.0..=1.0) * jitter;
                let lng = city.5 + rng.random_range(-1.0..=1.0) * jitter;
                (
                    Some((lat * 10_000.0).round() / 10_000.0),
                    Some((lng * 10_000.0).round() / 10_000.0),
                )
            };
            let is_active = chance(rng, 0.85);
            let created = when(rng, START, END);
            let updated = later(rng, created, END);
            let summary = match rng.random_range(0..3u32) {
                0 => format!(
                    "Free and open meetups, workshops and CTF nights in {}, {}.",
                    name, city.2
                ),
                1 => format!("Local community of developers, testers and defenders in {name}."),
                _ => String::new(),
            };
            let leaders = self.leaders(4);
            push(
                &mut self.ds.chapters,
                "chapters.jsonl",
                Chapter {
                    url: format!("https://community.example.org/{key}/"),
                    key,
                    name,
                    is_active,
                    country: city.2.to_string(),
                    region: city.3.to_string(),
                    latitude,
                    longitude,
                    summary,
                    leaders,
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    fn committees(&mut self) {
        let mut seen = HashSet::new();
        for i in 0..self.n.committees {
            let rng = &mut self.rng;
            let (base, base_slug) = COMMITTEES[i % COMMITTEES.len()];
            let name = format!("{base} Committee");
            let key = unique(&mut seen, format!("www-committee-{base_slug}"));
            let is_active = i % 6 != 5;
            let created = when(rng, START, END);
            let updated = later(rng, created, END);
            let description = format!(
                "The {name} {}.\n\nMeetings are public; minutes are published on the wiki.",
                pick(
                    rng,
                    &[
                        "supports leaders and approves new proposals",
                        "coordinates volunteers across regions",
                        "reviews policies and reports to the board",
                    ]
                )
            );
            let summary = description.lines().next().unwrap_or_default().to_string();
            let leaders = self.leaders(4);
            push(
                &mut self.ds.committees,
                "committees.jsonl",
                Committee {
                    url: format!("https://community.example.org/{key}/"),
                    key,
                    name,
                    is_active,
                    description,
                    summary,
                    leaders,
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    fn projects(&mut self) {
        let mut seen = HashSet::new();
        let n_repos = self.ds.repositories.len();
        for i in 0..self.n.projects {
            let rng = &mut self.rng;
            let (name, slug_part) = if chance(rng, 0.08) {
                let (n, s) = pick(rng, PROJECT_UNICODE);
                (n.to_string(), s.to_string())
            } else {
                let n = format!("{} {}", pick(rng, PROJECT_ADJ), pick(rng, PROJECT_NOUN));
                let s = slug(&n);
                (n, s)
            };
            let key = unique(&mut seen, format!("www-project-{slug_part}"));
            let level = enum_value(rng, i, Level::ALL, &[5, 15, 45, 25, 10]);
            let kind = enum_value(rng, i, ProjectType::ALL, &[55, 20, 20, 5]);
            let is_active = chance(rng, 0.85);
            let created = when(rng, START, END);
            let updated = later(rng, created, END);
            let max_repos = match level {
                Level::Flagship => 6,
                Level::Production => 4,
                _ => 3,
            };
            let wanted = rng.random_range(0..max_repos).min(n_repos);
            let mut repos: Vec<usize> = Vec::with_capacity(wanted);
            while repos.len() < wanted {
                let r = rng.random_range(0..n_repos);
                if !repos.contains(&r) {
                    repos.push(r);
                }
            }
            let repositories = repos
                .iter()
                .map(|&r| {
                    let repo = &self.ds.repositories[r].1;
                    RepositoryRef {
                        organization: repo.organization.clone(),
                        name: repo.name.clone(),
                    }
                })
                .collect();
            let description = format!(
                "{name} is a {}-level {} project of the community.\n\n{}",
                level.as_str(),
                kind.as_str(),
                pick(rng, &[
                    "It is maintained by volunteers; contributions are welcome.",
                    "Il est maintenu par des bénévoles ; les contributions sont les bienvenues.",
                    "Beiträge sind willkommen — siehe CONTRIBUTING.md.",
                ])
            );
            let summary = format!("{name}: a {} project.", kind.as_str());
            let leaders = self.leaders(4);
            push(
                &mut self.ds.projects,
                "projects.jsonl",
                Project {
                    url: format!("https://community.example.org/{key}/"),
                    key,
                    name,
                    is_active,
                    level,
                    kind,
                    description,
                    summary,
                    leaders,
                    repositories,
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    fn events(&mut self) {
        let mut seen = HashSet::new();
        // Events run from 2016 to the end of 2027: some are still upcoming.
        let first_day = NaiveDate::from_ymd_opt(2016, 1, 1).expect("date");
        let days = (NaiveDate::from_ymd_opt(2027, 12, 31).expect("date") - first_day).num_days();
        for i in 0..self.n.events {
            let rng = &mut self.rng;
            let category = enum_value(rng, i, Category::ALL, &[25, 15, 35, 25]);
            let city = pick(rng, CITIES);
            let start = first_day + Duration::days(rng.random_range(0..=days));
            let year = start.year();
            let region = city.3;
            let (name, key) = match category {
                Category::AppsecDays => (
                    format!("AppSec Days {} {year}", city.0),
                    format!("appsec-days-{}-{year}", city.1),
                ),
                Category::Global => (
                    format!("Global AppSec {region} {year} {}", city.0),
                    format!("global-appsec-{}-{year}-{}", slug(region), city.1),
                ),
                Category::Partner => {
                    let partner = pick(rng, PARTNERS);
                    (
                        format!("{partner} {} {year}", city.0),
                        format!("{}-{}-{year}", slug(partner), city.1),
                    )
                }
                Category::Other => (
                    format!("{} Security Meetup {year}", city.0),
                    format!("{}-security-meetup-{year}", city.1),
                ),
            };
            let key = unique(&mut seen, key);
            let end_date = if chance(rng, 0.15) {
                None
            } else {
                Some(start + Duration::days(rng.random_range(0..4)))
            };
            let (latitude, longitude) = if chance(rng, 0.2) {
                (None, None)
            } else {
                (Some(city.4), Some(city.5))
            };
            push(
                &mut self.ds.events,
                "events.jsonl",
                Event {
                    url: if chance(rng, 0.1) {
                        None
                    } else {
                        Some(format!("https://events.example.org/{key}"))
                    },
                    description: if chance(rng, 0.1) {
                        None
                    } else {
                        Some(format!(
                            "{name} brings together developers, defenders and researchers in {region} for talks, trainings and a capture-the-flag.\n\nCall for papers and sponsorship details are on the event page."
                        ))
                    },
                    summary: format!("{name} ({})", category.as_str()),
                    suggested_location: if chance(rng, 0.7) {
                        city.0.to_string()
                    } else {
                        String::new()
                    },
                    key,
                    name,
                    category,
                    start_date: Date(start.format("%Y-%m-%d").to_string()),
                    end_date: end_date.map(|d| Date(d.format("%Y-%m-%d").to_string())),
                    latitude,
                    longitude,
                },
            );
        }
    }

    fn sponsors(&mut self) {
        let mut seen = HashSet::new();
        for i in 0..self.n.sponsors {
            let rng = &mut self.rng;
            let base = SPONSORS[i % SPONSORS.len()];
            let name = if i < SPONSORS.len() {
                base.to_string()
            } else {
                format!(
                    "{base} {}",
                    pick(rng, &["Labs", "Cloud", "Security", "Ventures", "Group"])
                )
            };
            let key_base = match slug(&name) {
                s if s.is_empty() => format!("sponsor-{}", i + 1),
                s => s,
            };
            let key = unique(&mut seen, key_base);
            let sponsor_type = enum_value(rng, i, SponsorType::ALL, &[5, 8, 15, 20, 30, 22]);
            let member_type = enum_value(rng, i, MemberType::ALL, &[15, 20, 25, 40]);
            let domain = key.clone();
            push(
                &mut self.ds.sponsors,
                "sponsors.jsonl",
                Sponsor {
                    image_url: format!("https://community.example.org/assets/sponsors/{key}.png"),
                    url: format!("https://{domain}.example.com/"),
                    job_url: if chance(rng, 0.5) {
                        format!("https://{domain}.example.com/careers")
                    } else {
                        String::new()
                    },
                    description: format!(
                        "{name} supports the community's open-source security work."
                    ),
                    key,
                    name,
                    sponsor_type,
                    is_member: member_type != MemberType::None,
                    member_type,
                },
            );
        }
    }

    fn snapshots(&mut self) {
        let n = self.n.snapshots;
        // The last `n` months of the history, oldest first.
        let end = chrono::DateTime::from_timestamp(END, 0)
            .expect("end")
            .date_naive();
        let mut months: Vec<(i32, u32)> = Vec::with_capacity(n);
        let (mut y, mut m) = (end.year(), end.month());
        for _ in 0..n {
            if m == 1 {
                y -= 1;
                m = 12;
            } else {
                m -= 1;
            }
            months.push((y, m));
        }
        months.reverse();
        // Month boundaries: bounds[k]..bounds[k + 1] is month k.
        let mut bounds: Vec<i64> = months.iter().map(|&(y, m)| month_start(y, m)).collect();
        bounds.push(END);
        let month_of = |t: Ts| -> Option<usize> {
            let secs = t.0.div_euclid(1_000_000);
            if secs < bounds[0] || secs >= END {
                return None;
            }
            Some(bounds.partition_point(|&b| b <= secs) - 1)
        };

        let mut lists: Vec<Snapshot> = Vec::with_capacity(n);
        for (k, &(y, m)) in months.iter().enumerate() {
            let rng = &mut self.rng;
            // Most are completed: the newest is pending, the one before processing,
            // one in the middle failed.
            let status = if n >= 2 && k == n - 1 {
                SnapshotStatus::Pending
            } else if n >= 3 && k == n - 2 {
                SnapshotStatus::Processing
            } else if n >= 4 && k == n / 2 {
                SnapshotStatus::Error
            } else {
                SnapshotStatus::Completed
            };
            let created = bounds[k + 1] + 2 * DAY + rng.random_range(0..DAY);
            let updated = created + rng.random_range(60..3 * DAY);
            lists.push(Snapshot {
                key: format!("{y:04}-{m:02}"),
                title: format!("Snapshot {} {y}", MONTHS[m as usize - 1]),
                status,
                start_at: ts(bounds[k]),
                end_at: ts(bounds[k + 1] - 1),
                created_at: ts(created),
                updated_at: ts(updated),
                new_chapters: Vec::new(),
                new_projects: Vec::new(),
                new_members: Vec::new(),
                new_issues: Vec::new(),
                new_releases: Vec::new(),
            });
        }
        let ds = &self.ds;
        for (_, c) in &ds.chapters {
            if let Some(k) = month_of(c.created_at) {
                lists[k].new_chapters.push(c.key.clone());
            }
        }
        for (_, p) in &ds.projects {
            if let Some(k) = month_of(p.created_at) {
                lists[k].new_projects.push(p.key.clone());
            }
        }
        for (_, x) in &ds.members {
            if let Some(k) = month_of(x.created_at) {
                lists[k].new_members.push(x.login.clone());
            }
        }
        for (_, i) in &ds.issues {
            if let Some(k) = month_of(i.created_at) {
                lists[k].new_issues.push(IssueRef {
                    organization: i.organization.clone(),
                    repository: i.repository.clone(),
                    number: i.number,
                });
            }
        }
        for (_, r) in &ds.releases {
            if let Some(k) = month_of(r.created_at) {
                lists[k].new_releases.push(ReleaseRef {
                    organization: r.organization.clone(),
                    repository: r.repository.clone(),
                    tag_name: r.tag_name.clone(),
                });
            }
        }
        for s in lists {
            push(&mut self.ds.snapshots, "snapshots.jsonl", s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apportion_sums_to_the_total() {
        let parts = apportion(1000, &[1.0, 0.0, 5.0, 0.5, 3.0]);
        assert_eq!(parts.iter().sum::<usize>(), 1000);
        assert_eq!(parts[1], 0);
        assert!(parts[2] > parts[4] && parts[4] > parts[3]);
    }

    #[test]
    fn time_constants_are_the_documented_dates() {
        assert_eq!(START, month_start(2016, 1));
        assert_eq!(END, month_start(2026, 10));
    }

    #[test]
    fn slugs_are_ascii() {
        assert_eq!(slug("Diversité & Inclusion"), "diversite-inclusion");
        assert_eq!(slug("Müller Sicherheit GmbH"), "muller-sicherheit-gmbh");
        assert_eq!(slug("サイバー株式会社"), "");
        assert_eq!(slug("  New York "), "new-york");
    }
}
