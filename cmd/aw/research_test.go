package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/agent/agenttest"
)

// fakeSearch answers like the three real providers, in their documented
// formats: DuckDuckGo's HTML endpoint (div.result, a.result__a with a
// /l/?uddg= redirect, .result__snippet, an ad marked result--ad), the
// MediaWiki API (action=query&list=search&format=json) and SearXNG's JSON
// API (/search?q=…&format=json). fail names providers that answer 500.
type fakeSearch struct {
	srv  *httptest.Server
	mu   sync.Mutex
	fail map[string]bool
	seen []string
}

func newFakeSearch(t *testing.T) *fakeSearch {
	f := &fakeSearch{fail: map[string]bool{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSearch) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r.URL.Path+"?"+r.URL.RawQuery)
	f.mu.Unlock()
	provider := map[string]string{"/html/": "duckduckgo", "/w/api.php": "wikipedia", "/searx/search": "searxng"}[r.URL.Path]
	if f.fail[provider] {
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	switch provider {
	case "duckduckgo":
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>%s at DuckDuckGo</title></head><body>
<div id="links" class="results">
<div class="result results_links results_links_deep result--ad">
  <div class="links_main links_deep result__body"><h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x&amp;u3=https%%3A%%2F%%2Fads.example">Sponsored thing</a></h2></div>
</div>
<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%%3A%%2F%%2Fgo.dev%%2Fdoc%%2Feffective_go&amp;rut=abc123">Effective <b>Go</b> - The Go Programming Language</a></h2>
    <div class="result__extras"><div class="result__extras__url"><a class="result__url" href="//duckduckgo.com/l/?uddg=https%%3A%%2F%%2Fgo.dev%%2Fdoc%%2Feffective_go&amp;rut=abc123">go.dev/doc/effective_go</a></div></div>
    <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%%3A%%2F%%2Fgo.dev%%2Fdoc%%2Feffective_go&amp;rut=abc123">Tips for writing clear, idiomatic <b>Go</b> code.</a>
    <div class="clear"></div>
  </div>
</div>
<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%%3A%%2F%%2Fgobyexample.com%%2F&amp;rut=def456">Go by Example</a></h2>
    <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%%3A%%2F%%2Fgobyexample.com%%2F&amp;rut=def456">Go is an open source programming language &amp; more.</a>
  </div>
</div>
</div></body></html>`, q.Get("q"))
	case "wikipedia":
		if q.Get("action") != "query" || q.Get("list") != "search" || q.Get("format") != "json" || q.Get("srsearch") == "" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"error":{"code":"badparams","info":"Unrecognized parameters.","*":"See https://en.wikipedia.org/w/api.php for API usage."},"servedby":"mw-api-int"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, `{"batchcomplete":true,"continue":{"sroffset":2,"continue":"-||"},"query":{"searchinfo":{"totalhits":5120},"search":[`+
			`{"ns":0,"title":"Go (programming language)","pageid":25039021,"size":84071,"wordcount":7140,"snippet":"<span class=\"searchmatch\">Go</span> is a high-level general purpose programming language that is statically typed","timestamp":"2025-03-01T10:00:00Z"},`+
			`{"ns":0,"title":"Gopher","pageid":1234,"size":100,"wordcount":10,"snippet":"The &lt;b&gt;mascot&lt;/b&gt;","timestamp":"2025-03-01T10:00:00Z"}]}}`)
	case "searxng":
		if q.Get("format") != "json" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"query":"`+q.Get("q")+`","number_of_results":0,"results":[`+
			`{"url":"https://pkg.go.dev/net/http","title":"http package - net/http","content":"Package http provides HTTP client and server implementations.","engine":"brave","parsed_url":["https","pkg.go.dev","/net/http","","",""],"template":"default.html","engines":["brave","duckduckgo"],"positions":[1,2],"score":4.0,"category":"general"},`+
			`{"url":"javascript:alert(1)","title":"bad","content":"","engine":"x","engines":["x"],"score":0.1,"category":"general"}],`+
			`"answers":[],"corrections":[],"infoboxes":[],"suggestions":["golang http"],"unresponsive_engines":[["google","timeout"]]}`)
	default:
		http.NotFound(w, r)
	}
}

// researchWorkspace writes a config with research on, the providers at f,
// private networks allowed (the test servers are on loopback) unless
// private is false.
func researchWorkspace(t *testing.T, mode int, f *fakeSearch, private bool, extra string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	base := "http://127.0.0.1:1"
	if f != nil {
		base = f.srv.URL
	}
	cfg := fmt.Sprintf(`{"permissionMode": %d, "research": {"enabled": true, "allowPrivateNetwork": %v, "duckduckgoUrl": %q, "wikipediaUrl": %q%s}}`,
		mode, private, base+"/html/", base+"/w/api.php", extra)
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustOK(t *testing.T, r Result, what string) {
	t.Helper()
	if r.Code != 0 || r.Env["ok"] != true {
		t.Fatalf("%s: exit %d: %s", what, r.Code, r.Stdout)
	}
}

func TestResearchProviders(t *testing.T) {
	f := newFakeSearch(t)
	dir := researchWorkspace(t, 2, f, true, "")

	r := runAW(t, dir, nil, "research", "search", "effective go", "--provider", "duckduckgo")
	mustOK(t, r, "duckduckgo")
	if r.field(t, ".data.provider") != "duckduckgo" || len(r.field(t, ".data.results").([]any)) != 2 {
		t.Fatalf("duckduckgo: %s", r.Stdout)
	}
	if r.field(t, ".data.results.0.url") != "https://go.dev/doc/effective_go" || r.field(t, ".data.results.0.title") != "Effective Go - The Go Programming Language" ||
		r.field(t, ".data.results.0.snippet") != "Tips for writing clear, idiomatic Go code." || r.field(t, ".data.results.1.snippet") != "Go is an open source programming language & more." {
		t.Fatalf("duckduckgo results: %s", r.Stdout)
	}
	if !strings.HasPrefix(r.field(t, ".data.queryId").(string), "query_") {
		t.Fatalf("queryId: %s", r.Stdout)
	}
	if omit := r.field(t, ".retention.omit_when_summarizing").([]any); len(omit) != 1 || omit[0] != "data.results" {
		t.Fatalf("omit: %v", omit)
	}

	r = runAW(t, dir, nil, "research", "search", "go language", "--provider", "wikipedia", "--limit", "2")
	mustOK(t, r, "wikipedia")
	if r.field(t, ".data.results.0.url") != f.srv.URL+"/wiki/Go_(programming_language)" ||
		r.field(t, ".data.results.0.snippet") != "Go is a high-level general purpose programming language that is statically typed" ||
		r.field(t, ".data.results.1.snippet") != "The <b>mascot</b>" {
		t.Fatalf("wikipedia: %s", r.Stdout)
	}

	// searxng needs an instance.
	r = runAW(t, dir, nil, "research", "search", "x", "--provider", "searxng")
	if r.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(r.field(t, ".error.message").(string), "research.searxngUrl") {
		t.Fatalf("searxng without an instance: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "research", "search", "x", "--provider", "bing")
	if r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Fatalf("unknown provider: %s", r.Stdout)
	}

	// auto without searxng: duckduckgo; when it fails, wikipedia, visibly.
	r = runAW(t, dir, nil, "research", "search", "go")
	mustOK(t, r, "auto")
	if r.field(t, ".data.provider") != "duckduckgo" || len(r.field(t, ".data.attempts").([]any)) != 1 {
		t.Fatalf("auto: %s", r.Stdout)
	}
	f.fail["duckduckgo"] = true
	r = runAW(t, dir, nil, "research", "search", "go")
	mustOK(t, r, "auto fall-back")
	if r.field(t, ".data.provider") != "wikipedia" || r.field(t, ".data.attempts.0.provider") != "duckduckgo" || r.field(t, ".data.attempts.0.ok") != false ||
		!strings.Contains(r.field(t, ".data.attempts.0.error").(string), "500") || r.field(t, ".data.attempts.1.provider") != "wikipedia" {
		t.Fatalf("auto fall-back: %s", r.Stdout)
	}
	if s := r.field(t, ".summary").(string); !strings.Contains(s, "duckduckgo failed") || !strings.Contains(s, "from wikipedia") {
		t.Fatalf("the fall-back is not in the summary: %s", s)
	}
	// Every provider failing is NETWORK_ERROR with the attempts.
	f.fail["wikipedia"] = true
	r = runAW(t, dir, nil, "research", "search", "go")
	if r.Code != 1 || r.field(t, ".error.code") != "NETWORK_ERROR" || len(r.field(t, ".error.details.attempts").([]any)) != 2 {
		t.Fatalf("all failing: %s", r.Stdout)
	}
	f.fail = map[string]bool{}

	// With searxng configured, auto asks it first.
	dir = researchWorkspace(t, 2, f, true, fmt.Sprintf(`, "searxngUrl": %q`, f.srv.URL+"/searx/"))
	r = runAW(t, dir, nil, "research", "search", "net http")
	mustOK(t, r, "searxng")
	if r.field(t, ".data.provider") != "searxng" || r.field(t, ".data.results.0.url") != "https://pkg.go.dev/net/http" || len(r.field(t, ".data.results").([]any)) != 1 {
		t.Fatalf("searxng: %s", r.Stdout)
	}
	f.fail["searxng"] = true
	r = runAW(t, dir, nil, "research", "search", "net http")
	if r.field(t, ".data.provider") != "wikipedia" || r.field(t, ".data.attempts.0.provider") != "searxng" {
		t.Fatalf("searxng fall-back: %s", r.Stdout)
	}
}

// site serves the fetch fixtures plus a long page and counts requests.
type researchSite struct {
	srv  *httptest.Server
	hits atomic.Int64
}

func newResearchSite(t *testing.T) *researchSite {
	s := &researchSite{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		switch r.URL.Path {
		case "/long":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<html><head><title>Long page</title></head><body><main><h1>Long</h1>")
			for i := 0; i < 400; i++ {
				fmt.Fprintf(w, "<p>Paragraph %d says something worth reading about topic %d. <a href=\"/item/%d\">item number %d</a></p>\n", i, i, i, i)
			}
			io.WriteString(w, "<p>THE-END</p></main></body></html>")
			return
		case "/redirect":
			http.Redirect(w, r, "/pages/docs.html", http.StatusFound)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/pages/")
		raw, err := os.ReadFile(filepath.Join("..", "..", "engine", "research", "testdata", "pages", name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(raw)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func TestResearchProjectFlow(t *testing.T) {
	site := newResearchSite(t)
	dir := researchWorkspace(t, 2, nil, true, "")

	r := runAW(t, dir, nil, "research", "start", "Tram", "line")
	mustOK(t, r, "start")
	id := r.field(t, ".data.researchId").(string)
	if !strings.HasPrefix(id, "research_") || r.field(t, ".data.title") != "Tram line" {
		t.Fatalf("start: %s", r.Stdout)
	}

	r = runAW(t, dir, nil, "research", "fetch", site.srv.URL+"/pages/news.html", "--research", id)
	mustOK(t, r, "fetch")
	src := r.field(t, ".data.sourceId").(string)
	path := r.field(t, ".data.contentPath").(string)
	if !strings.HasPrefix(src, "source_") || path != ".agentic/research/"+id+"/sources/"+src+".txt" {
		t.Fatalf("fetch: %s", r.Stdout)
	}
	raw, err := os.ReadFile(filepath.Join(dir, path))
	if err != nil || !strings.Contains(string(raw), "fourteen stops") || string(raw) != r.field(t, ".data.text") {
		t.Fatalf("source file: %v %q", err, raw)
	}
	facts := strings.Join(toStrings(r.field(t, ".retention.facts").([]any)), "\n")
	if !strings.Contains(facts, src) || !strings.Contains(facts, path) {
		t.Fatalf("facts lack the source: %s", facts)
	}

	r = runAW(t, dir, nil, "research", "search", "tram", "--research", id, "--provider", "wikipedia")
	if r.Code != 1 || r.field(t, ".error.code") != "NETWORK_ERROR" {
		t.Fatalf("search against a dead provider: %s", r.Stdout)
	}

	r = runAW(t, dir, nil, "research", "note", id, "--kind", "finding", "--text", "The line has fourteen stops.", "--source", src)
	mustOK(t, r, "note")
	if r.field(t, ".data.note.sourceId") != src || r.field(t, ".data.note.kind") != "finding" {
		t.Fatalf("note: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "research", "note", id, "--kind", "claim", "--text", "x", "--source", "source_0000000000000000000000a")
	if r.field(t, ".error.code") != "NOT_FOUND" {
		t.Fatalf("note with an unknown source: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "research", "note", id, "--kind", "rumour", "--text", "x")
	if r.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(r.field(t, ".error.message").(string), "finding, claim, question, warning, method") {
		t.Fatalf("note with a bad kind: %s", r.Stdout)
	}
	for _, k := range []string{"claim", "question", "warning", "method"} {
		mustOK(t, runAW(t, dir, nil, "research", "note", id, "--kind", k, "--text", "a "+k), k)
	}

	r = runAW(t, dir, nil, "research", "show", id)
	mustOK(t, r, "show")
	if len(r.field(t, ".data.project.sources").([]any)) != 1 || len(r.field(t, ".data.project.notes").([]any)) != 5 ||
		r.field(t, ".data.project.sources.0.title") != "City council approves new tram line | The Daily Ledger" {
		t.Fatalf("show: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "research", "list")
	if r.field(t, ".data.total") != float64(1) || r.field(t, ".data.projects.0.sources") != float64(1) {
		t.Fatalf("list: %s", r.Stdout)
	}
	// inspect changes reads id and title from project.json.
	r = runAW(t, dir, nil, "inspect", "changes")
	if r.field(t, ".data.researchProjects.0.id") != id || r.field(t, ".data.researchProjects.0.title") != "Tram line" {
		t.Fatalf("inspect changes: %s", r.Stdout)
	}

	mustOK(t, runAW(t, dir, nil, "research", "archive", id), "archive")
	r = runAW(t, dir, nil, "research", "archive", id)
	if !strings.Contains(r.field(t, ".summary").(string), "already archived") {
		t.Fatalf("archive twice: %s", r.Stdout)
	}
	hits := site.hits.Load()
	r = runAW(t, dir, nil, "research", "fetch", site.srv.URL+"/pages/docs.html", "--research", id)
	if r.field(t, ".error.code") != "TRANSACTION_STATE" || site.hits.Load() != hits {
		t.Fatalf("fetch into an archived project: %s", r.Stdout)
	}
	if r := runAW(t, dir, nil, "research", "list"); r.field(t, ".data.total") != float64(0) || r.field(t, ".data.archived") != float64(1) {
		t.Fatalf("list hides archived: %s", r.Stdout)
	}
	if r := runAW(t, dir, nil, "research", "list", "--all"); r.field(t, ".data.projects.0.status") != "archived" {
		t.Fatalf("list --all: %s", r.Stdout)
	}
	for _, bad := range [][]string{{"show", "research_nope"}, {"show", "research_0000000000000000000000a"}, {"start", ""}} {
		r := runAW(t, dir, nil, append([]string{"research"}, bad...)...)
		if r.Code == 0 || r.Env["ok"] != false {
			t.Fatalf("%v: %s", bad, r.Stdout)
		}
	}

	if r := runAW(t, dir, nil, "research", "deep", "--objective", "everything"); r.field(t, ".error.code") != "AGENT_DISABLED" {
		t.Fatalf("deep: %s", r.Stdout)
	}
}

// The fetch budget: data.text within maxToolResultChars with the
// whole text in an artifact, data.links within its own quarter share (at
// least 1,000 characters) with linksOmitted, both omitted when summarizing.
func TestResearchFetchBudget(t *testing.T) {
	site := newResearchSite(t)
	dir := researchWorkspace(t, 2, nil, true, "")
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode":2,"maxToolResultChars":2000,"research":{"enabled":true,"allowPrivateNetwork":true}}`), 0o644)

	r := runAW(t, dir, nil, "research", "fetch", site.srv.URL+"/long")
	mustOK(t, r, "fetch")
	text := r.field(t, ".data.text").(string)
	if n := utf8.RuneCountInString(text); n > 2000 || n < 1800 || r.field(t, ".data.truncated") != true {
		t.Fatalf("text is %d characters, truncated %v", n, r.field(t, ".data.truncated"))
	}
	cost := 0
	links := r.field(t, ".data.links").([]any)
	for _, l := range links {
		m := l.(map[string]any)
		cost += utf8.RuneCountInString(m["url"].(string)) + utf8.RuneCountInString(m["text"].(string))
	}
	omitted := r.field(t, ".data.linksOmitted").(float64)
	if cost > 1000 || cost < 900 || int(omitted)+len(links) != 400 || r.field(t, ".data.linksTotal") != float64(400) {
		t.Fatalf("links cost %d, %d kept, %v omitted", cost, len(links), omitted)
	}
	if r.field(t, ".data.links.0.url") != site.srv.URL+"/item/0" {
		t.Fatalf("links out of order: %v", links[0])
	}
	omit := toStrings(r.field(t, ".retention.omit_when_summarizing").([]any))
	if strings.Join(omit, ",") != "data.text,data.links" {
		t.Fatalf("omit_when_summarizing: %v", omit)
	}
	art := r.field(t, ".artifacts.0.path").(string)
	whole, err := os.ReadFile(filepath.Join(dir, art))
	if err != nil || !strings.HasPrefix(string(whole), text[:100]) || !strings.Contains(string(whole), "THE-END") {
		t.Fatalf("artifact %s: %v", art, err)
	}
	if s := r.field(t, ".summary").(string); !strings.Contains(s, art) || !strings.Contains(s, "linksOmitted") {
		t.Fatalf("summary: %s", s)
	}
	// A short page: no artifact, nothing omitted.
	r = runAW(t, dir, nil, "research", "fetch", site.srv.URL+"/redirect")
	mustOK(t, r, "fetch docs")
	if r.field(t, ".data.truncated") != false || r.field(t, ".data.linksOmitted") != float64(0) || r.Env["artifacts"] != nil ||
		r.field(t, ".data.redirects.0") != site.srv.URL+"/pages/docs.html" {
		t.Fatalf("short page: %s", r.Stdout)
	}
}

// The gate: kind web, Manual stages with the resume call, Plan refuses
// without a plan, start/note/list are never gated; tier and enabled.
func TestResearchGate(t *testing.T) {
	site := newResearchSite(t)
	dir, human := manualWorkspace(t, `, "research": {"enabled": true, "allowPrivateNetwork": true}`)
	url := site.srv.URL + "/pages/blog.html"

	r := runAW(t, dir, nil, "research", "start", "Builds")
	mustOK(t, r, "start in Manual mode")
	id := r.field(t, ".data.researchId").(string)

	r = runAW(t, dir, nil, "research", "fetch", url, "--research", id)
	if r.Code != 3 || r.field(t, ".data.status") != "pending_approval" || r.field(t, ".data.approval.kind") != "web" ||
		r.field(t, ".data.approval.resume.tool") != "workspace_research" || r.field(t, ".data.approval.resume.arguments.url") != url ||
		r.field(t, ".data.approval.resume.arguments.research_id") != id || site.hits.Load() != 0 {
		t.Fatalf("fetch in Manual mode: exit %d %s", r.Code, r.Stdout)
	}
	approval := r.field(t, ".data.approval.id").(string)
	again := runAW(t, dir, nil, "research", "fetch", url, "--research", id)
	if again.field(t, ".data.approval.id") != approval {
		t.Fatalf("re-issuing a pending call must return the same approval: %s", again.Stdout)
	}
	mustOK(t, runAWEnv(t, dir, nil, human, "approval", "accept", approval), "accept")
	// The resume call, exactly as the staged result gave it.
	args, _ := json.Marshal(r.field(t, ".data.approval.resume.arguments"))
	r = runAW(t, dir, nil, "call", "workspace_research", string(args))
	mustOK(t, r, "resumed fetch")
	if site.hits.Load() != 1 || r.field(t, ".data.title") != "Why our builds got 3x faster" {
		t.Fatalf("resumed fetch: %s", r.Stdout)
	}
	// Consumed: the same fetch is staged again.
	if r := runAW(t, dir, nil, "research", "fetch", url, "--research", id); r.Code != 3 {
		t.Fatalf("after consumption: exit %d %s", r.Code, r.Stdout)
	}
	if r := runAW(t, dir, nil, "research", "search", "builds"); r.Code != 3 || r.field(t, ".data.approval.kind") != "web" {
		t.Fatalf("search in Manual mode: %s", r.Stdout)
	}
	mustOK(t, runAW(t, dir, nil, "research", "note", id, "--kind", "question", "--text", "Remote caching?"), "note in Manual mode")
	mustOK(t, runAW(t, dir, nil, "research", "list"), "list in Manual mode")

	// Plan mode without a plan.
	plan := researchWorkspace(t, 1, nil, true, "")
	if r := runAW(t, plan, nil, "research", "fetch", url); r.field(t, ".error.code") != "APPROVAL_REQUIRED" {
		t.Fatalf("Plan mode: %s", r.Stdout)
	}
	mustOK(t, runAW(t, plan, nil, "research", "start", "x"), "start in Plan mode")

	// Tier: fetch reaches the network.
	auto := researchWorkspace(t, 2, nil, true, "")
	if r := runAW(t, auto, nil, "--tier", "write", "research", "fetch", url); r.field(t, ".error.code") != "TOOL_DISABLED" {
		t.Fatalf("--tier write: %s", r.Stdout)
	}
	// A project is a record the next agent reads: the write tier.
	mustOK(t, runAW(t, auto, nil, "--tier", "write", "research", "start", "x"), "start at tier write")
	if r := runAW(t, auto, nil, "--tier", "read", "research", "start", "y"); r.field(t, ".error.code") != "TOOL_DISABLED" || r.field(t, ".error.details.tier") != "write" {
		t.Fatalf("start at tier read: %s", r.Stdout)
	}
	mustOK(t, runAW(t, auto, nil, "--tier", "read", "research", "list"), "list at tier read")

	// research.enabled off.
	off := t.TempDir()
	if r := runAW(t, off, nil, "research", "start", "x"); r.field(t, ".error.code") != "TOOL_DISABLED" || r.field(t, ".error.details.setting") != "research.enabled" {
		t.Fatalf("disabled: %s", r.Stdout)
	}
}

// SSRF through the binary: with allowPrivateNetwork off, every spelling of
// a loopback or unspecified address is refused and the server never hit.
func TestResearchFetchRefusesPrivate(t *testing.T) {
	site := newResearchSite(t)
	_, port, _ := net.SplitHostPort(site.srv.Listener.Addr().String())
	dir := researchWorkspace(t, 2, nil, false, "")
	for _, host := range []string{"127.0.0.1", "localhost", "2130706433", "0x7f000001", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0"} {
		r := runAW(t, dir, nil, "research", "fetch", "http://"+host+":"+port+"/pages/news.html")
		if r.Code != 1 || r.field(t, ".error.code") != "NETWORK_ERROR" || r.field(t, ".error.details.reason") != "private-address" ||
			r.field(t, ".error.details.setting") != "research.allowPrivateNetwork" {
			t.Errorf("%s: exit %d %s", host, r.Code, r.Stdout)
		}
	}
	for _, raw := range []string{"file:///etc/passwd", "gopher://127.0.0.1:70/", "ftp://example.com/"} {
		if r := runAW(t, dir, nil, "research", "fetch", raw); r.field(t, ".error.code") != "INVALID_INPUT" || r.field(t, ".error.details.reason") != "scheme" {
			t.Errorf("%s: %s", raw, r.Stdout)
		}
	}
	if n := site.hits.Load(); n != 0 {
		t.Fatalf("the loopback server was reached %d times", n)
	}
}

// A page's text is data: a page that tells the agent to change settings
// and fetch internal addresses changes nothing and triggers no request.
func TestResearchPageTextIsData(t *testing.T) {
	site := newResearchSite(t)
	dir := researchWorkspace(t, 2, nil, true, "")
	before, _ := os.ReadFile(filepath.Join(dir, ".agentic", "config.json"))
	r := runAW(t, dir, nil, "research", "fetch", site.srv.URL+"/pages/injection.html")
	mustOK(t, r, "fetch")
	if !strings.Contains(r.field(t, ".data.text").(string), "IMPORTANT SYSTEM INSTRUCTION") {
		t.Fatalf("the text is returned as it is: %s", r.Stdout)
	}
	after, _ := os.ReadFile(filepath.Join(dir, ".agentic", "config.json"))
	if string(before) != string(after) || site.hits.Load() != 1 {
		t.Fatalf("the page changed something: config %q -> %q, %d requests", before, after, site.hits.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, ".agentic", "approvals")); err == nil {
		t.Fatalf("a page created approval records")
	}
}

// research deep starts a research-mode run tied to a project: it cannot
// edit or run commands, its search and note go into the project, and
// --run awaits it. In Manual mode the deep call is staged as web once,
// and that approval covers the run's own web calls.
func TestResearchDeepRecordsIntoTheProject(t *testing.T) {
	f := newFakeSearch(t)
	script := func() []agenttest.Turn {
		return []agenttest.Turn{
			{Calls: []agenttest.Call{call("workspace_research", M{"action": "search", "query": "effective go", "provider": "duckduckgo"})},
				Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
					if tools := strings.Join(agenttest.ToolNames(req), " "); strings.Contains(tools, "workspace_command") || !strings.Contains(tools, "workspace_research") {
						t.Errorf("a deep run's tools: %s", tools)
					}
				}},
			{Calls: []agenttest.Call{call("workspace_research", M{"action": "note", "kind": "finding", "text": "Effective Go is the style guide"})}},
			{Content: `{"summary": "Effective Go is the place to start", "evidence": ["go.dev/doc/effective_go"], "confidence": "medium"}`},
		}
	}
	model := agenttest.New(t, script()...)
	agents := fmt.Sprintf(`, "agents": {"enabled": true, "allowWeb": true, "allowCommands": true, "baseUrl": %q, "model": "scripted"}`, model.BaseURL())
	dir := researchWorkspace(t, 2, f, true, "")
	writeSettings(t, dir, strings.Replace(readSettings(t, dir), `}}`, `}`+agents+`}`, 1))
	r := runAW(t, dir, nil, "research", "deep", "How", "to", "write", "Go", "well")
	mustOK(t, r, "deep")
	run, project := r.field(t, ".data.runId").(string), r.field(t, ".data.researchProjectId").(string)
	if r.field(t, ".data.commitEdits") != false || r.field(t, ".data.allowCommands") != false || r.field(t, ".data.mode") != "research" {
		t.Errorf("deep run: %s", r.Stdout)
	}
	w := runAW(t, dir, nil, "research", "deep", "--run", run, "--timeout", "30")
	if w.field(t, ".data.status") != "completed" || w.field(t, ".data.summary") != "Effective Go is the place to start" {
		t.Fatalf("await: %s", w.Stdout)
	}
	show := runAW(t, dir, nil, "research", "show", project)
	if len(show.field(t, ".data.project.queries").([]any)) != 1 || len(show.field(t, ".data.project.notes").([]any)) != 1 {
		t.Errorf("the project did not get the run's search and note: %s", show.Stdout)
	}
	for _, tc := range []struct {
		args []string
		code string
	}{
		{[]string{"research", "deep"}, "INVALID_INPUT"},
		{[]string{"research", "deep", "--run", run, "--objective", "x"}, "INVALID_INPUT"},
		{[]string{"research", "deep", "x", "--research", "research_0000000000000000000000a"}, "NOT_FOUND"},
	} {
		if r := runAW(t, dir, nil, tc.args...); r.field(t, ".error.code") != tc.code {
			t.Errorf("%v: %s", tc.args, r.Stdout)
		}
	}

	// Manual mode: staged once as web; once approved, the run's search is
	// not staged again.
	model2 := agenttest.New(t, script()...)
	agents = fmt.Sprintf(`, "agents": {"enabled": true, "allowWeb": true, "baseUrl": %q, "model": "scripted"}`, model2.BaseURL())
	mdir := researchWorkspace(t, 0, f, true, "")
	writeSettings(t, mdir, strings.Replace(readSettings(t, mdir), `}}`, `}`+agents+`}`, 1))
	human := approver(t)
	staged := runAW(t, mdir, nil, "research", "deep", "--objective", "How to write Go well")
	if staged.Code != 3 || staged.field(t, ".data.approval.kind") != "web" || model2.Served() != 0 {
		t.Fatalf("Manual deep: %s", staged.Stdout)
	}
	if a := runAWEnv(t, mdir, nil, human, "approval", "accept", staged.field(t, ".data.approval.id").(string)); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	r = runAW(t, mdir, nil, "research", "deep", "--objective", "How to write Go well")
	mustOK(t, r, "approved deep")
	w = runAW(t, mdir, nil, "research", "deep", "--run", r.field(t, ".data.runId").(string), "--timeout", "30")
	if w.field(t, ".data.status") != "completed" || w.field(t, ".data.toolCalls") != float64(2) {
		t.Fatalf("approved deep run: %s", w.Stdout)
	}
	if l := runAW(t, mdir, nil, "approval", "list"); l.field(t, ".data.pending") != float64(0) {
		t.Errorf("the run's own web calls were staged: %s", l.Stdout)
	}
}

func readSettings(t *testing.T, dir string) string {
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
