//! The word lists `roost db synth` draws from: names in several scripts, cities,
//! companies, titles, bios, organization, repository, project and sponsor name parts,
//! label names and colours, licences, topics, languages, and the vocabulary of issue
//! bodies (words, components, problems, headings, code lines).
//!
//! Lists whose entries pair a display form with an ASCII form give the latter for
//! logins and keys. Changing any list changes every synthetic dataset.

/// (display, ascii) given names from several scripts.
#[rustfmt::skip]
pub(super) const GIVEN: &[(&str, &str)] = &[
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
pub(super) const FAMILY: &[(&str, &str)] = &[
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
pub(super) const CJK_FAMILY: &[(&str, &str)] = &[
    ("李", "li"), ("王", "wang"), ("张", "zhang"), ("陈", "chen"), ("刘", "liu"), ("田中", "tanaka"),
    ("佐藤", "sato"), ("鈴木", "suzuki"), ("高橋", "takahashi"), ("김", "kim"), ("이", "lee"),
    ("박", "park"), ("최", "choi"),
];
#[rustfmt::skip]
pub(super) const CJK_GIVEN: &[(&str, &str)] = &[
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
pub(super) const CITIES: &[City] = &[
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
pub(super) const CHAPTER_SUFFIXES: &[(&str, &str)] = &[
    ("North", "north"), ("South", "south"), ("Metro", "metro"), ("Tech", "tech"),
    ("University", "university"), ("Bay Area", "bay-area"), ("Région", "region"),
    ("Süd", "sud"), ("Women in AppSec", "women-in-appsec"), ("Students", "students"),
];

#[rustfmt::skip]
pub(super) const COMPANIES: &[&str] = &[
    "Acme", "Globex", "Initech", "Hooli", "Umbrella", "Stark Industries", "Wayne Enterprises",
    "@appsec-labs", "Freelance", "Independent", "Self-employed", "Société Générale Sécurité",
    "Müller & Söhne GmbH", "株式会社サイバー", "Contoso", "Fabrikam", "Northwind", "Tyrell",
    "Cyberdyne", "Soylent", "Aperture Science", "Black Mesa", "Vandelay Industries",
    "Pied Piper", "Massive Dynamic", "Oscorp", "Gringotts", "Monsters, Inc.", "Dunder Mifflin",
    "Wonka Industries", "Nakatomi Trading", "Ollivanders", "@secure-code-foundation",
    "Universidad de Buenos Aires", "ETH Zürich", "Tsinghua University",
];

pub(super) const EXTRA_LOCATIONS: &[&str] =
    &["Remote", "Earth 🌍", "localhost", "The Internet", "Europe"];

#[rustfmt::skip]
pub(super) const TITLES: &[&str] = &[
    "Software Engineer", "Security Engineer", "Penetration Tester", "AppSec Lead",
    "Security Researcher", "DevSecOps Engineer", "CTO", "Student", "Consultant",
    "Staff Engineer", "Bug Bounty Hunter", "Ingénieure sécurité", "Red Team Operator",
    "Open Source Maintainer", "Developer Advocate",
];

#[rustfmt::skip]
pub(super) const BIOS: &[&str] = &[
    "AppSec engineer. Breaking things so you don't have to.",
    "Pentester by day, open-source contributor by night.",
    "Building secure software, one pull request at a time.", "Threat modeling enthusiast ☕",
    "Ingénieur logiciel, passionné de sécurité.", "Sicherheitsforscher und Kaffeetrinker.",
    "セキュリティエンジニア。OSS が好きです。", "Maintainer of too many side projects.",
    "CTF player 🏴 | reverse engineering | fuzzing", "Ex-developer, now defending the web.",
    "Seguridad de aplicaciones y software libre.", "Writing about supply-chain security.",
];

#[rustfmt::skip]
pub(super) const ORG_WORDS: &[&str] = &[
    "securecode", "juice", "appsec", "threat", "cipher", "vault", "sentinel", "bastion",
    "aegis", "citadel", "phoenix", "kestrel", "falcon", "raven", "owl", "lynx", "badger",
    "otter", "harbor", "beacon", "lighthouse", "compass", "anchor", "shield", "fortress",
    "keystone", "granite", "cobalt", "nimbus", "aurora",
];
#[rustfmt::skip]
pub(super) const ORG_SUFFIXES: &[&str] = &[
    "-labs", "org", "-project", "-dev", "-community", "hq", "-tools", "-io",
];

#[rustfmt::skip]
pub(super) const WORDS: &[&str] = &[
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
pub(super) const COMPONENTS: &[&str] = &[
    "parser", "scanner", "CLI", "web UI", "API", "docs", "installer", "auth module",
    "report generator", "plugin loader", "proxy", "spider", "rule engine", "Docker image",
    "Helm chart", "config loader", "i18n", "dashboard", "SARIF export", "CI workflow",
];
#[rustfmt::skip]
pub(super) const PROBLEMS: &[&str] = &[
    "crashes on empty input", "leaks memory on large files", "ignores the proxy setting",
    "times out behind a corporate firewall", "reports a false positive",
    "breaks with Unicode paths", "misses reflected XSS", "fails on Windows",
    "shows the wrong severity", "does not honour --quiet",
    "hangs when the server closes the connection", "rejects valid certificates",
    "double-encodes query parameters",
];
#[rustfmt::skip]
pub(super) const VERBS: &[&str] = &[
    "Fix", "Improve", "Refactor", "Document", "Add tests for", "Speed up", "Harden", "Simplify",
    "Remove", "Deprecate", "Support", "Translate",
];
#[rustfmt::skip]
pub(super) const PACKAGES: &[&str] = &[
    "express", "lodash", "jackson-databind", "log4j-core", "requests", "urllib3", "serde",
    "tokio", "spring-boot", "django", "flask", "react", "webpack", "openssl", "axios",
    "golang.org/x/net", "rails", "nokogiri", "guava", "numpy",
];
#[rustfmt::skip]
pub(super) const FEATURES: &[&str] = &[
    "SBOM export", "dark mode", "GraphQL scanning", "OpenAPI import", "rate limit options",
    "Kubernetes operator", "SARIF output", "plugin marketplace", "offline mode",
    "custom rules in YAML", "passkey login", "multi-tenant reports",
];
#[rustfmt::skip]
pub(super) const UNICODE_TITLES: &[&str] = &[
    "Übersetzung der Oberfläche aktualisieren", "日本語ドキュメントの更新",
    "Mejorar la documentación del instalador", "Corriger l’encodage des caractères accentués",
    "Обновить зависимости", "修复扫描器在空输入时崩溃的问题", "설치 스크립트 오류 수정", "Ενημέρωση μεταφράσεων",
];

#[rustfmt::skip]
pub(super) const CODE_LANGS: &[&str] = &[
    "", "bash", "json", "yaml", "python", "rust", "java", "javascript", "text",
];
#[rustfmt::skip]
pub(super) const CODE_LINES: &[&str] = &[
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
pub(super) const HEADINGS: &[&str] = &[
    "Description", "Steps to reproduce", "Expected behaviour", "Actual behaviour",
    "Environment", "Logs", "Possible fix", "Additional context", "Proposal", "Motivation",
    "Alternatives considered", "Checklist", "Impact",
];

#[rustfmt::skip]
pub(super) const LICENSES: &[&str] = &[
    "MIT", "Apache-2.0", "GPL-3.0", "BSD-3-Clause", "", "AGPL-3.0", "MPL-2.0", "CC-BY-SA-4.0",
    "LGPL-2.1", "BSD-2-Clause", "Unlicense",
];
#[rustfmt::skip]
pub(super) const TOPICS: &[&str] = &[
    "security", "appsec", "owasp", "scanner", "pentest", "devsecops", "sast", "dast", "fuzzing",
    "ctf", "cheatsheet", "threat-modeling", "sbom", "supply-chain", "crypto", "authentication",
    "kubernetes", "docker", "api-security", "web-security", "education", "vulnerability",
    "hacktoberfest", "privacy", "compliance",
];
#[rustfmt::skip]
pub(super) const LANGUAGES: &[&str] = &[
    "Python", "JavaScript", "TypeScript", "Java", "Go", "Rust", "C", "C++", "Shell", "HTML",
    "CSS", "Ruby", "PHP", "Kotlin", "C#", "Dockerfile", "Makefile", "Lua",
];
#[rustfmt::skip]
pub(super) const REPO_WORDS: &[&str] = &[
    "scanner", "shield", "guard", "lint", "fuzz", "proxy", "vault", "gate", "audit", "scope",
    "probe", "sentry", "watch", "trace", "map", "forge", "kit", "box", "hub", "lab", "core",
    "cli", "web", "api", "docs", "rules", "policies", "bench", "ctf", "wiki", "cheatsheets",
    "juice", "zap", "dragon", "falcon", "badger", "dependency", "secrets", "headers", "crypto",
    "auth", "sso", "jwt", "sbom", "threat", "model", "honeypot", "sandbox",
];
#[rustfmt::skip]
pub(super) const REPO_EXTS: &[&str] = &[
    "", "-extensions", "-ctf", ".js", ".py", "-rs", "-action", "-operator", "-docs", "-go",
];

pub(super) const LABEL_BASE: &[(&str, &str)] = &[
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
pub(super) const LABEL_PREFIXES: &[&str] = &[
    "area/", "component: ", "scope:", "lang/", "kind/", "team/", "platform: ", "rule: ",
];
#[rustfmt::skip]
pub(super) const COLORS: &[&str] = &[
    "d73a4a", "a2eeef", "0075ca", "7057ff", "008672", "e4e669", "d876e3", "cfd3d7", "ffffff",
    "0366d6", "fbca04", "b60205", "0e8a16", "5319e7", "1d76db", "c5def5", "bfdadc", "f9d0c4",
    "FEF2C0", "BFD4F2", "ededed", "000000", "ff7619", "84b6eb",
];

#[rustfmt::skip]
pub(super) const PROJECT_ADJ: &[&str] = &[
    "Secure", "Threat", "Dependency", "Juice", "Web", "Mobile", "Cloud", "Open", "Zero",
    "Crypto", "Code", "API", "Supply", "Serverless", "Container", "Identity", "Privacy",
    "Honey", "Fuzzy", "Red", "Blue", "Purple", "Modern", "Top", "Software",
];
#[rustfmt::skip]
pub(super) const PROJECT_NOUN: &[&str] = &[
    "Headers", "Dragon", "Check", "Shop", "Testing Guide", "Verification Standard",
    "Cheat Sheets", "Scanner", "Top Ten", "Cornucopia", "Knowledge Base", "Maturity Model",
    "Toolkit", "Defender", "Goat", "Sandbox", "Proxy", "Benchmark", "Playbook", "Radar",
    "Inventory", "Policy Engine", "Wiki", "Academy", "Lab",
];
#[rustfmt::skip]
pub(super) const PROJECT_UNICODE: &[(&str, &str)] = &[
    ("Sécurité Ouverte", "securite-ouverte"), ("Café Scanner", "cafe-scanner"),
    ("Überprüfer", "uberprufer"), ("安全 Toolkit", "anquan-toolkit"),
    ("Zoë Fuzzer", "zoe-fuzzer"), ("Guía de Pruebas", "guia-de-pruebas"),
    ("Проверка кода", "proverka-koda"), ("セキュア設計", "secure-design-jp"),
];

#[rustfmt::skip]
pub(super) const COMMITTEES: &[(&str, &str)] = &[
    ("Chapter", "chapter"), ("Project", "project"), ("Events", "events"),
    ("Membership", "membership"), ("Education", "education"), ("Governance", "governance"),
    ("Compliance", "compliance"), ("Diversité & Inclusion", "diversity-inclusion"),
    ("Outreach", "outreach"), ("Nominations", "nominations"), ("Finance", "finance"),
    ("Technology", "technology"), ("Conférences", "conferences"), ("Industry", "industry"),
    ("Global Board Liaison", "global-board-liaison"),
];

#[rustfmt::skip]
pub(super) const SPONSORS: &[&str] = &[
    "Acme", "Globex Security", "Initech", "Hooli", "Umbrella", "Contoso", "Fabrikam",
    "Northwind", "Müller Sicherheit GmbH", "Société Sécure", "サイバー株式会社", "Tyrell", "Cyberdyne",
    "Aperture", "Black Mesa", "Pied Piper", "Massive Dynamic", "Oscorp", "Vandelay", "Wonka",
    "Nakatomi", "Stark", "Wayne", "Soylent", "Dunder Mifflin", "Gringotts", "Monsters Inc",
    "Ollivanders", "Bluth", "Prestige Worldwide",
];

#[rustfmt::skip]
pub(super) const PARTNERS: &[&str] = &[
    "CloudCon", "DevOpsDays", "BSides", "SecTor", "OpenSSF Day", "KubeCon",
];
