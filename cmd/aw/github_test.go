package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ghToken is the token the fake GitHub expects. No output of aw may carry it.
const ghToken = "ghp_SeCrEtT0kenThatMustNeverLeak1234"

// fakeGitHub implements the REST endpoints aw uses, with the response
// shapes of the public GitHub REST documentation (docs.github.com/rest):
// GET /user, GET/POST /repos/{o}/{r}/issues, GET/POST /repos/{o}/{r}/pulls,
// GET /repos/{o}/{r}, GET /repos/{o}/{r}/pulls/{n} (application/vnd.github.diff).
// It serves under /api/v3, as GitHub Enterprise does.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	// posts records the JSON bodies of POSTs by path.
	posts map[string][]map[string]any
	// requests records "METHOD path?query" of every request.
	requests []string
	// override answers a path with a canned failure (status, headers, body).
	override map[string]func(w http.ResponseWriter)
	diff     string
}

const apiPrefix = "/api/v3"

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{t: t, posts: map[string][]map[string]any{}, override: map[string]func(http.ResponseWriter){}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) apiURL() string { return f.srv.URL + apiPrefix }

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	over := f.override[strings.TrimPrefix(r.URL.Path, apiPrefix)]
	f.mu.Unlock()
	w.Header().Set("X-RateLimit-Limit", "5000")
	w.Header().Set("X-RateLimit-Remaining", "4999")
	if over != nil {
		over(w)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, apiPrefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("X-GitHub-Api-Version") == "" {
		writeJSON(w, 400, map[string]any{"message": "missing X-GitHub-Api-Version"})
		return
	}
	auth := r.Header.Get("Authorization")
	if auth != "" && auth != "Bearer "+ghToken {
		writeJSON(w, 401, map[string]any{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"})
		return
	}
	switch {
	case path == "/user":
		if auth == "" {
			writeJSON(w, 401, map[string]any{"message": "Requires authentication", "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user", "status": "401"})
			return
		}
		w.Header().Set("X-OAuth-Scopes", "repo, read:org")
		writeJSON(w, 200, map[string]any{"login": "octocat", "id": 1, "node_id": "MDQ6VXNlcjE=", "type": "User", "name": "The Octocat",
			"html_url": "https://github.com/octocat", "site_admin": false})
	case path == "/repos/octo/hello" && r.Method == "GET":
		writeJSON(w, 200, map[string]any{"id": 1296269, "name": "hello", "full_name": "octo/hello", "default_branch": "trunk", "private": false})
	case path == "/repos/octo/hello/issues" && r.Method == "GET":
		f.listIssues(w, r)
	case path == "/repos/octo/hello/issues" && r.Method == "POST":
		body := f.record(r, path)
		writeJSON(w, 201, issueJSON(f.srv.URL, 1347, body["title"].(string), "open", false))
	case path == "/repos/octo/hello/pulls" && r.Method == "GET":
		var out []any
		for n := 1; n <= 3; n++ {
			out = append(out, prJSON(f.srv.URL, n, fmt.Sprintf("PR %d", n), "feature-"+strconv.Itoa(n), "trunk", n == 2))
		}
		writeJSON(w, 200, out)
	case path == "/repos/octo/hello/pulls" && r.Method == "POST":
		body := f.record(r, path)
		draft, _ := body["draft"].(bool)
		writeJSON(w, 201, prJSON(f.srv.URL, 42, body["title"].(string), body["head"].(string), body["base"].(string), draft))
	case path == "/repos/octo/hello/pulls/7":
		if r.Header.Get("Accept") != "application/vnd.github.diff" {
			writeJSON(w, 415, map[string]any{"message": "want the diff media type"})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, f.diff)
	default:
		writeJSON(w, 404, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"})
	}
}

func (f *fakeGitHub) record(r *http.Request, path string) map[string]any {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		f.t.Errorf("POST %s: body is not JSON: %v", path, err)
	}
	f.mu.Lock()
	f.posts[path] = append(f.posts[path], body)
	f.mu.Unlock()
	return body
}

// listIssues serves 250 issues (every fifth one a pull request, as the
// endpoint returns them) in pages of per_page, linked by the Link header.
func (f *fakeGitHub) listIssues(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per == 0 {
		per = 30
	}
	page, _ := strconv.Atoi(q.Get("page"))
	if page == 0 {
		page = 1
	}
	const total = 250
	state := q.Get("state")
	var out []any
	for n := (page-1)*per + 1; n <= min(total, page*per); n++ {
		title := fmt.Sprintf("issue %d", n)
		if q.Get("labels") != "" {
			title += " [" + q.Get("labels") + "]"
		}
		out = append(out, issueJSON(f.srv.URL, n, title, state, n%5 == 0))
	}
	last := (total + per - 1) / per
	link := func(p int, rel string) string {
		u := *r.URL
		qq := u.Query()
		qq.Set("page", strconv.Itoa(p))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf(`<%s%s>; rel="%s"`, f.srv.URL, u.RequestURI(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	writeJSON(w, 200, out)
}

func issueJSON(base string, n int, title, state string, pr bool) map[string]any {
	if state == "" || state == "all" {
		state = "open"
	}
	m := map[string]any{
		"id": 1000 + n, "node_id": "I_x", "number": n, "title": title, "state": state,
		"url":      fmt.Sprintf("%s/api/v3/repos/octo/hello/issues/%d", base, n),
		"html_url": fmt.Sprintf("https://github.com/octo/hello/issues/%d", n),
		"user":     map[string]any{"login": "octocat", "id": 1},
		"labels":   []any{map[string]any{"id": 208045946, "name": "bug", "color": "f29513", "default": true}},
		"assignee": nil, "assignees": []any{map[string]any{"login": "hubot", "id": 2}},
		"comments": n % 3, "created_at": "2011-04-22T13:33:48Z", "updated_at": "2011-04-22T13:33:48Z", "closed_at": nil,
		"body": "Body of issue " + strconv.Itoa(n), "locked": false,
	}
	if pr {
		m["pull_request"] = map[string]any{"url": fmt.Sprintf("%s/api/v3/repos/octo/hello/pulls/%d", base, n), "html_url": "https://github.com/octo/hello/pull/" + strconv.Itoa(n)}
	}
	return m
}

func prJSON(base string, n int, title, head, base2 string, draft bool) map[string]any {
	return map[string]any{
		"id": 2000 + n, "number": n, "state": "open", "title": title, "draft": draft, "locked": false,
		"url":        fmt.Sprintf("%s/api/v3/repos/octo/hello/pulls/%d", base, n),
		"html_url":   fmt.Sprintf("https://github.com/octo/hello/pull/%d", n),
		"user":       map[string]any{"login": "octocat", "id": 1},
		"head":       map[string]any{"label": "octo:" + head, "ref": head, "sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e"},
		"base":       map[string]any{"label": "octo:" + base2, "ref": base2, "sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e"},
		"created_at": "2011-01-26T19:01:12Z", "updated_at": "2011-01-26T19:01:12Z", "merged_at": nil,
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// ghWorkspace is a workspace whose settings point github.apiUrl at the fake
// server, in a git repository whose origin is remote (empty: none).
func ghWorkspace(t *testing.T, f *fakeGitHub, mode int, remote string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	cfg := fmt.Sprintf(`{"permissionMode": %d, "github": {"apiUrl": %q}}`, mode, f.apiURL())
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644)
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/topic/parser\n"), 0o644)
	gitcfg := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
	if remote != "" {
		gitcfg += "[remote \"origin\"]\n\turl = " + remote + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	}
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(gitcfg), 0o644)
	return dir
}

var withToken = []string{"GH_TOKEN=" + ghToken}

// gh runs aw with the token in the environment and checks that the token
// appears nowhere in what aw printed.
func gh(t *testing.T, dir string, env []string, args ...string) Result {
	t.Helper()
	r := runAWEnv(t, dir, nil, env, args...)
	if strings.Contains(string(r.Stdout), ghToken) || strings.Contains(string(r.Stderr), ghToken) {
		t.Fatalf("aw %v printed the token:\n%s\n%s", args, r.Stdout, r.Stderr)
	}
	return r
}

// noTokenOnDisk checks every file aw wrote under .agentic/ (artifacts,
// approvals, logs) for the token.
func noTokenOnDisk(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(filepath.Join(dir, ".agentic"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		raw, _ := os.ReadFile(p)
		if strings.Contains(string(raw), ghToken) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
}

func TestGitHubAuth(t *testing.T) {
	f := newFakeGitHub(t)
	dir := ghWorkspace(t, f, 2, "")
	r := gh(t, dir, withToken, "vcs", "gh-auth")
	if r.Code != 0 {
		t.Fatalf("gh-auth: %s", r.Stdout)
	}
	if r.field(t, ".operation") != "vcs.gh_auth" || r.field(t, ".data.login") != "octocat" || r.field(t, ".data.scopes.1") != "read:org" || r.field(t, ".data.tokenEnv") != "GH_TOKEN" {
		t.Fatalf("gh-auth data: %s", r.Stdout)
	}

	// No token: a clear refusal naming the variable, before any request.
	r = gh(t, dir, []string{"GH_TOKEN="}, "vcs", "gh-auth")
	if r.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(r.field(t, ".error.message").(string), "export GH_TOKEN=") {
		t.Fatalf("gh-auth without a token: %s", r.Stdout)
	}
	// A rejected token: 401 names the variable and how to set it.
	r = gh(t, dir, []string{"GH_TOKEN=ghp_wrong"}, "vcs", "gh-auth")
	msg, _ := r.field(t, ".error.message").(string)
	if r.Code != 1 || r.field(t, ".error.code") != "NETWORK_ERROR" || !strings.Contains(msg, "401 Bad credentials") || !strings.Contains(msg, "$GH_TOKEN") || !strings.Contains(msg, "export GH_TOKEN=<token>") {
		t.Fatalf("gh-auth with a bad token: %s", r.Stdout)
	}
	// github.tokenEnv names another variable.
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(fmt.Sprintf(`{"permissionMode": 2, "github": {"apiUrl": %q, "tokenEnv": "MY_GH"}}`, f.apiURL())), 0o644)
	if r = gh(t, dir, []string{"MY_GH=" + ghToken, "GH_TOKEN="}, "vcs", "gh-auth"); r.field(t, ".data.login") != "octocat" || r.field(t, ".data.tokenEnv") != "MY_GH" {
		t.Fatalf("gh-auth with tokenEnv MY_GH: %s", r.Stdout)
	}
	if r = gh(t, dir, []string{"GH_TOKEN=" + ghToken, "MY_GH="}, "vcs", "gh-auth"); !strings.Contains(r.field(t, ".error.message").(string), "MY_GH") {
		t.Fatalf("the refusal must name MY_GH: %s", r.Stdout)
	}
	// The network is reached: --tier write refuses; vcs.enabled turns the tool off.
	if r = gh(t, dir, withToken, "--tier", "write", "vcs", "gh-auth"); r.field(t, ".error.code") != "TOOL_DISABLED" {
		t.Fatalf("gh-auth at --tier write: %s", r.Stdout)
	}
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"vcs": {"enabled": false}}`), 0o644)
	if r = gh(t, dir, withToken, "vcs", "gh-auth"); r.field(t, ".error.code") != "TOOL_DISABLED" || !strings.Contains(r.field(t, ".error.message").(string), "vcs.enabled") {
		t.Fatalf("gh-auth with vcs disabled: %s", r.Stdout)
	}
	noTokenOnDisk(t, dir)
}

func TestGitHubIssueListPagination(t *testing.T) {
	f := newFakeGitHub(t)
	dir := ghWorkspace(t, f, 2, "git@github.com:octo/hello.git")

	// 250 results in pages of 100, every fifth a pull request: 120 issues
	// need two pages; the rest stay unread (truncated).
	r := gh(t, dir, withToken, "vcs", "issue-list", "--limit", "120", "--label", "bug", "--label", "p1", "--state", "closed")
	if r.Code != 0 {
		t.Fatalf("issue-list: %s", r.Stdout)
	}
	if r.field(t, ".data.repo") != "octo/hello" || r.field(t, ".data.count") != 120.0 || r.field(t, ".data.truncated") != true || r.field(t, ".data.state") != "closed" {
		t.Fatalf("issue-list data: count %v truncated %v", r.field(t, ".data.count"), r.field(t, ".data.truncated"))
	}
	var got struct {
		Data struct {
			Issues []struct {
				Number int      `json:"number"`
				Title  string   `json:"title"`
				Labels []string `json:"labels"`
			} `json:"issues"`
			InlineCount int `json:"inlineCount"`
		} `json:"data"`
		Artifacts []struct{ Path string } `json:"artifacts"`
	}
	json.Unmarshal(r.Stdout, &got)
	for _, is := range got.Data.Issues {
		if is.Number%5 == 0 {
			t.Fatalf("pull request #%d listed as an issue", is.Number)
		}
		if !strings.HasSuffix(is.Title, "[bug,p1]") {
			t.Fatalf("labels were not sent as a filter: %q", is.Title)
		}
	}
	f.mu.Lock()
	reqs := append([]string{}, f.requests...)
	f.mu.Unlock()
	if len(reqs) != 2 || !strings.Contains(reqs[0], "per_page=100") || !strings.Contains(reqs[1], "page=2") || !strings.Contains(reqs[0], "state=closed") {
		t.Fatalf("requests: %v", reqs)
	}
	// 120 issues do not fit in 20000 characters: the whole list is an
	// artifact and the inline list is a prefix of it.
	if len(got.Artifacts) != 1 || got.Data.InlineCount == 0 || got.Data.InlineCount >= 120 {
		t.Fatalf("artifacts %v inlineCount %d", got.Artifacts, got.Data.InlineCount)
	}
	raw, err := os.ReadFile(filepath.Join(dir, got.Artifacts[0].Path))
	if err != nil || strings.Count(string(raw), `"number"`) != 120 {
		t.Fatalf("the artifact holds %d issues (%v)", strings.Count(string(raw), `"number"`), err)
	}
	if !strings.Contains(r.field(t, ".retention.facts.0").(string), "issue #1 closed") {
		t.Fatalf("facts: %v", r.field(t, ".retention.facts"))
	}

	// Every page until the end: 200 issues, not truncated.
	r = gh(t, dir, withToken, "vcs", "issue-list", "--limit", "1000", "--repo", "octo/hello")
	if r.field(t, ".data.count") != 200.0 || r.field(t, ".data.truncated") != false {
		t.Fatalf("all pages: count %v truncated %v", r.field(t, ".data.count"), r.field(t, ".data.truncated"))
	}
	// Without a token the read goes unauthenticated and says so.
	r = gh(t, dir, []string{"GH_TOKEN="}, "vcs", "issue-list", "--limit", "5")
	if r.Code != 0 || r.field(t, ".data.authenticated") != false || !strings.Contains(r.field(t, ".summary").(string), "unauthenticated") {
		t.Fatalf("unauthenticated issue-list: %s", r.Stdout)
	}
	// Bad arguments.
	if r = gh(t, dir, withToken, "vcs", "issue-list", "--state", "merged"); r.Code != 2 {
		t.Fatalf("--state merged: %s", r.Stdout)
	}
	if r = gh(t, dir, withToken, "vcs", "issue-list", "--repo", "octo/../x"); r.Code != 2 {
		t.Fatalf("--repo octo/../x: %s", r.Stdout)
	}
	// A Link header pointing at another host is not followed (the token
	// would go there).
	f.override["/repos/octo/evil/issues"] = func(w http.ResponseWriter) {
		w.Header().Set("Link", `<https://evil.example/steal?page=2>; rel="next"`)
		writeJSON(w, 200, []any{issueJSON(f.srv.URL, 1, "one", "open", false)})
	}
	r = gh(t, dir, withToken, "vcs", "issue-list", "--repo", "octo/evil", "--limit", "50")
	if r.field(t, ".error.code") != "NETWORK_ERROR" || !strings.Contains(r.field(t, ".error.message").(string), "outside github.apiUrl") {
		t.Fatalf("foreign next link: %s", r.Stdout)
	}
	noTokenOnDisk(t, dir)
}

func TestGitHubRepoFromRemote(t *testing.T) {
	f := newFakeGitHub(t)
	for _, remote := range []string{
		"https://github.com/octo/hello.git",
		"https://x-access-token:" + ghToken + "@github.com/octo/hello",
		"git@github.com:octo/hello.git",
		"ssh://git@github.com/octo/hello.git",
		"ssh://git@ghe.example.com:2222/octo/hello/",
		"git://github.com/octo/hello",
	} {
		dir := ghWorkspace(t, f, 2, remote)
		r := gh(t, dir, withToken, "vcs", "pr-list")
		if r.Code != 0 || r.field(t, ".data.repo") != "octo/hello" {
			t.Fatalf("remote %s: %s", strings.ReplaceAll(remote, ghToken, "TOKEN"), r.Stdout)
		}
	}
	// No origin and no --repo: a clear INVALID_INPUT.
	dir := ghWorkspace(t, f, 2, "")
	r := gh(t, dir, withToken, "vcs", "pr-list")
	if r.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(r.field(t, ".error.message").(string), "--repo OWNER/NAME") {
		t.Fatalf("no origin: %s", r.Stdout)
	}
	// A remote that is not OWNER/NAME is refused without echoing its credentials.
	dir = ghWorkspace(t, f, 2, "https://user:"+ghToken+"@example.com/")
	if r = gh(t, dir, withToken, "vcs", "pr-list"); r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Fatalf("bad remote: %s", r.Stdout)
	}
	// pr-list data.
	dir = ghWorkspace(t, f, 2, "git@github.com:octo/hello.git")
	r = gh(t, dir, withToken, "vcs", "pr-list", "--base", "trunk")
	if r.field(t, ".data.count") != 3.0 || r.field(t, ".data.pullRequests.1.draft") != true || r.field(t, ".data.pullRequests.0.head") != "feature-1" || r.field(t, ".data.pullRequests.0.base") != "trunk" {
		t.Fatalf("pr-list: %s", r.Stdout)
	}
}

func TestGitHubErrors(t *testing.T) {
	f := newFakeGitHub(t)
	dir := ghWorkspace(t, f, 2, "git@github.com:octo/hello.git")
	reset := time.Now().Add(90 * time.Second).Unix()
	f.override["/repos/octo/ratelimited/issues"] = func(w http.ResponseWriter) {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
		writeJSON(w, 403, map[string]any{"message": "API rate limit exceeded for user ID 1.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})
	}
	f.override["/repos/octo/secondary/issues"] = func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "30")
		writeJSON(w, 429, map[string]any{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})
	}
	f.override["/repos/octo/echo/issues"] = func(w http.ResponseWriter) {
		// A hostile or buggy server echoing the credentials back.
		writeJSON(w, 500, map[string]any{"message": "internal error for Bearer " + ghToken})
	}
	f.override["/repos/octo/echo/pulls"] = func(w http.ResponseWriter) {
		writeJSON(w, 200, []any{prJSON(f.srv.URL, 1, "title with "+ghToken, "h", "b", false)})
	}
	f.override["/repos/octo/hello/pulls/9"] = func(w http.ResponseWriter) {
		writeJSON(w, 422, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"resource": "PullRequest", "code": "custom", "message": "No commits between trunk and topic"}}, "documentation_url": "https://docs.github.com/rest/pulls/pulls"})
	}

	r := gh(t, dir, withToken, "vcs", "issue-list", "--repo", "octo/ratelimited")
	msg, _ := r.field(t, ".error.message").(string)
	if r.Code != 1 || r.field(t, ".error.code") != "NETWORK_ERROR" || r.field(t, ".error.details.rateLimited") != true ||
		!strings.Contains(msg, "rate limit") || !strings.Contains(msg, time.Unix(reset, 0).UTC().Format(time.RFC3339)) || !strings.Contains(msg, "retry after that") {
		t.Fatalf("primary rate limit: %s", r.Stdout)
	}
	if s := r.field(t, ".error.details.retryAfterSeconds").(float64); s < 60 || s > 95 {
		t.Fatalf("retryAfterSeconds %v, want about 90", s)
	}
	r = gh(t, dir, withToken, "vcs", "issue-list", "--repo", "octo/secondary")
	if r.field(t, ".error.code") != "NETWORK_ERROR" || !strings.Contains(r.field(t, ".error.message").(string), "retry after 30 seconds") || r.field(t, ".error.details.retryAfterSeconds") != 30.0 {
		t.Fatalf("secondary rate limit: %s", r.Stdout)
	}
	r = gh(t, dir, withToken, "vcs", "issue-list", "--repo", "octo/missing")
	if r.field(t, ".error.code") != "NOT_FOUND" || !strings.Contains(r.field(t, ".error.message").(string), "404 Not Found") {
		t.Fatalf("404: %s", r.Stdout)
	}
	r = gh(t, dir, withToken, "vcs", "pr-diff", "9")
	if r.field(t, ".error.code") != "NETWORK_ERROR" || !strings.Contains(r.field(t, ".error.message").(string), "422: Validation Failed (No commits between trunk and topic)") {
		t.Fatalf("422: %s", r.Stdout)
	}
	// The token never comes back out, even when the server echoes it.
	r = gh(t, dir, withToken, "vcs", "issue-list", "--repo", "octo/echo")
	if r.field(t, ".error.code") != "NETWORK_ERROR" || !strings.Contains(r.field(t, ".error.message").(string), "[redacted]") {
		t.Fatalf("echoed token: %s", r.Stdout)
	}
	r = gh(t, dir, withToken, "vcs", "pr-list", "--repo", "octo/echo")
	if r.Code != 0 || !strings.Contains(string(r.Stdout), "[redacted]") {
		t.Fatalf("echoed token in data: %s", r.Stdout)
	}
	// An unreachable API is a NETWORK_ERROR naming the URL.
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 2, "github": {"apiUrl": "http://127.0.0.1:1/api/v3"}}`), 0o644)
	r = gh(t, dir, withToken, "vcs", "issue-list")
	if r.field(t, ".error.code") != "NETWORK_ERROR" || !strings.Contains(r.field(t, ".error.message").(string), "cannot reach GitHub at http://127.0.0.1:1/api/v3") {
		t.Fatalf("unreachable: %s", r.Stdout)
	}
	noTokenOnDisk(t, dir)
}

func TestGitHubPRDiff(t *testing.T) {
	f := newFakeGitHub(t)
	dir := ghWorkspace(t, f, 2, "git@github.com:octo/hello.git")
	var b strings.Builder
	b.WriteString("diff --git a/README.md b/README.md\nindex 1..2 100644\n--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n")
	b.WriteString("diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,3000 @@\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "+line %d of a file that is long enough\n", i)
	}
	f.diff = b.String()
	r := gh(t, dir, withToken, "vcs", "pr-diff", "7")
	if r.Code != 0 {
		t.Fatalf("pr-diff: %s", r.Stdout)
	}
	if r.field(t, ".data.files.0.path") != "README.md" || r.field(t, ".data.files.0.additions") != 1.0 || r.field(t, ".data.files.0.deletions") != 1.0 ||
		r.field(t, ".data.files.1.path") != "big.txt" || r.field(t, ".data.files.1.additions") != 3000.0 || r.field(t, ".data.truncated") != true {
		t.Fatalf("pr-diff data: %.600s", r.Stdout)
	}
	if inline := r.field(t, ".data.diff").(string); len(inline) > 20010 {
		t.Fatalf("inline diff is %d bytes, want <= maxToolResultChars", len(inline))
	}
	art := r.field(t, ".artifacts.0.path").(string)
	raw, err := os.ReadFile(filepath.Join(dir, art))
	if err != nil || string(raw) != f.diff {
		t.Fatalf("the artifact is not the whole diff (%d bytes, want %d): %v", len(raw), len(f.diff), err)
	}
	if r = gh(t, dir, withToken, "vcs", "pr-diff", "x7"); r.Code != 2 {
		t.Fatalf("pr-diff x7: %s", r.Stdout)
	}
	if r = gh(t, dir, withToken, "vcs", "pr-diff"); r.Code != 2 || !strings.Contains(r.field(t, ".error.message").(string), "number is required") {
		t.Fatalf("pr-diff without a number: %s", r.Stdout)
	}
}

// TestGitHubGatedWrites: issue-create and pr-create are gated vcs actions:
// staged in Manual mode with the resume call, APPROVAL_REQUIRED in Plan
// mode without a plan, run in Auto. Nothing reaches GitHub until they run.
func TestGitHubGatedWrites(t *testing.T) {
	f := newFakeGitHub(t)
	remote := "https://github.com/octo/hello.git"

	// Plan mode without a plan.
	dir := ghWorkspace(t, f, 1, remote)
	r := gh(t, dir, withToken, "vcs", "issue-create", "--title", "Crash on start")
	if r.Code != 1 || r.field(t, ".error.code") != "APPROVAL_REQUIRED" {
		t.Fatalf("Plan mode: %s", r.Stdout)
	}

	// Manual mode: staged, exit 3, resume arguments; accepted, the same
	// call runs once and consumes the approval.
	dir, human := manualWorkspace(t, fmt.Sprintf(`, "github": {"apiUrl": %q}`, f.apiURL()))
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = "+remote+"\n"), 0o644)
	args := []string{"vcs", "issue-create", "--title", "Crash on start", "--body", "Steps: run it", "--label", "bug"}
	r = gh(t, dir, withToken, args...)
	if r.Code != 3 || r.field(t, ".data.status") != "pending_approval" || r.field(t, ".data.approval.kind") != "vcs" {
		t.Fatalf("Manual mode: exit %d: %s", r.Code, r.Stdout)
	}
	id := r.field(t, ".data.approval.id").(string)
	if r.field(t, ".data.approval.resume.tool") != "workspace_vcs" || r.field(t, ".data.approval.resume.arguments.action") != "issue_create" ||
		r.field(t, ".data.approval.resume.arguments.repo") != "octo/hello" || r.field(t, ".data.approval.resume.arguments.labels.0") != "bug" {
		t.Fatalf("resume: %s", r.Stdout)
	}
	if again := gh(t, dir, withToken, args...); again.Code != 3 || again.field(t, ".data.approval.id") != id {
		t.Fatalf("a re-issued pending call must return the same approval: %s", again.Stdout)
	}
	if len(f.posts) != 0 {
		t.Fatalf("a staged call reached GitHub: %v", f.posts)
	}
	if a := runAWEnv(t, dir, nil, human, "approval", "accept", id); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	// The resume call, through aw call, runs it.
	resume, _ := json.Marshal(map[string]any{"action": "issue_create", "repo": "octo/hello", "title": "Crash on start", "body": "Steps: run it", "labels": []string{"bug"}})
	r = gh(t, dir, withToken, "call", "workspace_vcs", string(resume))
	if r.Code != 0 || r.field(t, ".data.number") != 1347.0 || r.field(t, ".operation") != "vcs.issue_create" {
		t.Fatalf("after accept: %s", r.Stdout)
	}
	if p := f.posts["/repos/octo/hello/issues"]; len(p) != 1 || p[0]["title"] != "Crash on start" || p[0]["body"] != "Steps: run it" {
		t.Fatalf("POST bodies: %v", p)
	}
	if s := runAW(t, dir, nil, "approval", "show", id); s.field(t, ".data.approval.status") != "consumed" {
		t.Fatalf("approval after the run: %s", s.Stdout)
	}
	// Consumed: the same call stages again.
	if r = gh(t, dir, withToken, args...); r.Code != 3 || r.field(t, ".data.approval.id") == id {
		t.Fatalf("after consumption: %s", r.Stdout)
	}
	noTokenOnDisk(t, dir)

	// Auto: pr-create runs; head defaults to the current branch, base to
	// the repository's default branch.
	dir = ghWorkspace(t, f, 2, remote)
	r = gh(t, dir, withToken, "vcs", "pr-create", "--title", "Parser fix", "--draft")
	if r.Code != 0 || r.field(t, ".data.number") != 42.0 || r.field(t, ".data.head") != "topic/parser" || r.field(t, ".data.base") != "trunk" || r.field(t, ".data.draft") != true {
		t.Fatalf("pr-create in Auto: %s", r.Stdout)
	}
	if p := f.posts["/repos/octo/hello/pulls"]; len(p) != 1 || p[0]["head"] != "topic/parser" || p[0]["base"] != "trunk" {
		t.Fatalf("POST bodies: %v", p)
	}
	// Staged pr-create names the resolved head in its resume call.
	dir2, _ := manualWorkspace(t, fmt.Sprintf(`, "github": {"apiUrl": %q}`, f.apiURL()))
	os.MkdirAll(filepath.Join(dir2, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir2, ".git", "HEAD"), []byte("ref: refs/heads/feat\n"), 0o644)
	r = gh(t, dir2, withToken, "vcs", "pr-create", "--repo", "octo/hello", "--title", "T", "--base", "trunk")
	if r.Code != 3 || r.field(t, ".data.approval.resume.arguments.head") != "feat" {
		t.Fatalf("staged pr-create: %s", r.Stdout)
	}
	// Writes need a token before anything is staged.
	if r = gh(t, dir2, []string{"GH_TOKEN="}, "vcs", "pr-create", "--repo", "octo/hello", "--title", "T2"); r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Fatalf("pr-create without a token: %s", r.Stdout)
	}
	noTokenOnDisk(t, dir2)
}
