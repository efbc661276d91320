// A small client written against the types openapi-typescript generates from
// openapi.json (copied beside it as ./roost.ts by .ci/steps/30-sdk.sh). It must
// type-check with tsc --strict: the schemas and parameters name what a user needs.
import type { components, operations, paths } from "./roost";

type Schemas = components["schemas"];
export type Chapter = Schemas["Chapter"];
export type ChapterDetail = Schemas["ChapterDetail"];
export type PagedChapter = Schemas["PagedChapter"];
export type ProjectQuery = NonNullable<operations["list_projects"]["parameters"]["query"]>;

const KEY_HEADER = "X-API-Key";

/** GET a path of the API and return its JSON body as the given type. */
async function get<T>(base: string, key: string, path: string, query: Record<string, unknown> = {}): Promise<T> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== undefined) params.append(name, String(v));
    }
  }
  const qs = params.toString();
  const response = await fetch(`${base}${path}${qs ? `?${qs}` : ""}`, { headers: { [KEY_HEADER]: key } });
  if (!response.ok) {
    const error = (await response.json()) as Schemas["ErrorDetail"] | Schemas["ChapterError"] | Schemas["ValidationErrorSchema"];
    throw new Error("detail" in error ? error.detail : error.message);
  }
  return (await response.json()) as T;
}

export async function chapterNames(base: string, key: string): Promise<string[]> {
  const page = await get<PagedChapter>(base, key, "/api/v0/chapters/", { ordering: "-created_at", page_size: 10 });
  const names: string[] = page.items.map((c: Chapter) => c.name);
  const hasMore: boolean = page.has_next && page.current_page < page.total_pages;
  return hasMore ? [...names, "…"] : names;
}

export async function chapterCountry(base: string, key: string, id: paths["/api/v0/chapters/{chapter_id}"]["get"]["parameters"]["path"]["chapter_id"]): Promise<string> {
  const chapter = await get<ChapterDetail>(base, key, `/api/v0/chapters/${encodeURIComponent(id)}`);
  const leaders: (string | null)[] = chapter.leaders.map((l) => l.key);
  const latitude: number | null = chapter.latitude;
  return `${chapter.country} (${leaders.length} leaders, latitude ${latitude ?? "unknown"})`;
}

// Parameters carry their enums: a typo is a compile error.
export const flagshipTools: ProjectQuery = { level: "flagship", type: ["tool", "code"], ordering: "-updated_at", page: 1, page_size: 100, q: "stars:>=10" };
// @ts-expect-error "gold" is not a project level
export const badLevel: ProjectQuery = { level: "gold" };
// @ts-expect-error type is repeated: an array of project types
export const badType: ProjectQuery = { type: "tool" };
export const upcoming: NonNullable<operations["list_events"]["parameters"]["query"]> = { is_upcoming: true, category: ["global", "appsec_days"], latitude_gte: 10.5 };

// Enums and item shapes.
export const level: Schemas["ProjectLevel"] = "incubator";
export const state: Schemas["IssueState"] = "closed";
export const member: Schemas["SponsorMemberType"] = "Platinum";
export function snapshotIssueWhere(issue: Schemas["SnapshotIssue"]): string {
  return `${issue.organization_login ?? "?"}/${issue.repository_name ?? "?"}: ${issue.state}`;
}
export function releaseWhen(release: Schemas["ReleaseDetail"]): string {
  return release.published_at ?? release.created_at;
}

// Responses of an operation by status.
type GetChapterResponses = operations["get_chapter"]["responses"];
export type NotFound = GetChapterResponses[404]["content"]["application/json"];
export const notFound: NotFound = { message: "Chapter not found" };
export const unknownPath: NotFound = { detail: "Not Found" };
export type TooMany = operations["list_chapters"]["responses"][429]["headers"]["Retry-After"];
