package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// semanticWS is a workspace holding files (path → content) and a config.
func semanticWS(t *testing.T, cfg string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	if cfg != "" {
		writeConfig(t, dir, cfg)
	}
	for p, c := range files {
		writeFile(t, filepath.Join(dir, p), c)
	}
	return dir
}

// shopModule is a small Go module whose functions say what they do.
var shopModule = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"billing/invoice.go": `package billing

import "time"

// ParseInvoiceDate reads the date printed on an invoice (RFC 3339).
func ParseInvoiceDate(s string) (time.Time, error) {
	return time.Parse(time.RFC3339, s)
}

// Invoice is a bill sent to a customer.
type Invoice struct {
	Number string
	Total  int
}

// ApplyDiscount lowers the invoice total by a percentage.
func (inv *Invoice) ApplyDiscount(percent int) {
	inv.Total -= inv.Total * percent / 100
}
`,
	"cart/cart.go": `package cart

// Cart holds the items a customer is about to buy.
type Cart struct{ items []string }

// AddItem puts one more item into the shopping cart.
func (c *Cart) AddItem(name string) { c.items = append(c.items, name) }

// Checkout empties the cart and returns what was bought.
func (c *Cart) Checkout() []string {
	out := c.items
	c.items = nil
	return out
}
`,
	"cart/cart_test.go": `package cart

import "testing"

func TestAddItem(t *testing.T) {
	var c Cart
	c.AddItem("shopping cart item")
}
`,
}

type semResult struct {
	Path      string  `json:"path"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Symbol    string  `json:"symbol"`
	Score     float64 `json:"score"`
	Snippet   string  `json:"snippet"`
}

func semResults(t *testing.T, r Result) []semResult {
	t.Helper()
	mustOK(t, r, "semantic-search")
	raw, _ := json.Marshal(r.field(t, ".data.results"))
	var out []semResult
	json.Unmarshal(raw, &out)
	return out
}

func TestSemanticSearchGoModule(t *testing.T) {
	ws := semanticWS(t, "", shopModule)
	r := runAW(t, ws, nil, "inspect", "semantic-search", "where is the invoice date parsed")
	res := semResults(t, r)
	if len(res) == 0 || res[0].Path != "billing/invoice.go" || res[0].Symbol != "ParseInvoiceDate" {
		t.Fatalf("top result: %s", r.Stdout)
	}
	if res[0].StartLine != 5 || res[0].EndLine != 8 || !strings.Contains(res[0].Snippet, "func ParseInvoiceDate") || res[0].Score <= 0 {
		t.Errorf("chunk bounds or snippet: %+v", res[0])
	}
	if r.field(t, ".data.index.rebuilt") != true || r.field(t, ".data.ranking") != "bm25" || r.field(t, ".operation") != "inspect.semantic_search" {
		t.Errorf("first query builds the index: %s", r.Stdout)
	}
	// A method is named by its receiver; identifiers are split into words.
	res = semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "apply a discount to the total"))
	if res[0].Symbol != "Invoice.ApplyDiscount" {
		t.Errorf("method: %+v", res)
	}
	// PATH narrows, --limit bounds, tests rank below the code they test.
	res = semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "add an item to the shopping cart", "cart", "--limit", "2"))
	if len(res) != 2 || res[0].Symbol != "Cart.AddItem" {
		t.Errorf("PATH and --limit: %+v", res)
	}
	for _, x := range res {
		if !strings.HasPrefix(x.Path, "cart/") {
			t.Errorf("PATH cart returned %s", x.Path)
		}
	}
	res = semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "invoice", "cart/cart.go"))
	for _, x := range res {
		if x.Path != "cart/cart.go" {
			t.Errorf("a file PATH returned %s", x.Path)
		}
	}
	// The second query reads nothing again.
	r = runAW(t, ws, nil, "inspect", "semantic-search", "checkout")
	if r.field(t, ".data.index.rebuilt") != false || r.field(t, ".data.index.changed") != 0.0 || r.field(t, ".data.index.added") != 0.0 {
		t.Errorf("an unchanged tree is not re-indexed: %s", r.Stdout)
	}
	r = runAW(t, ws, nil, "inspect", "index", "status")
	mustOK(t, r, "index status")
	if r.field(t, ".data.files") != 4.0 || r.field(t, ".data.exists") != true || r.field(t, ".data.path") != ".agentic/index" || r.field(t, ".data.bytes").(float64) <= 0 {
		t.Errorf("status: %s", r.Stdout)
	}
	r = runAW(t, ws, nil, "inspect", "index", "rebuild")
	mustOK(t, r, "index rebuild")
	if r.field(t, ".data.update.rebuilt") != true || r.field(t, ".data.chunks").(float64) < 7 {
		t.Errorf("rebuild: %s", r.Stdout)
	}
}

func TestSemanticSearchMixedTree(t *testing.T) {
	ws := semanticWS(t, "", map[string]string{
		"app/models.py": `import json


class UserRepository:
    """Stores users in a JSON file."""

    def load_users(self, path):
        with open(path) as f:
            return json.load(f)

    def save_user(self, user):
        pass


def send_welcome_email(user):
    """Emails a new user a greeting."""
    return "hello " + user
`,
		"web/router.ts": `import { Request } from "./http";

// matchRoute finds the handler registered for a request path.
export function matchRoute(routes: Map<string, Handler>, req: Request): Handler | undefined {
  return routes.get(req.path);
}

export interface Handler {
  (req: Request): void;
}
`,
		"web/legacy.js": `// formatCurrency prints an amount of money with two decimals.
function formatCurrency(amount) {
  return amount.toFixed(2);
}
`,
		"docs/guide.md": "# Guide\n\nThe welcome email is sent once an account exists.\n",
		"native/ring.c": "/* a ring buffer of bytes */\nint ring_push(int x) { return x; }\n",
	})
	cases := []struct{ q, lang, path, symbol string }{
		{"load users from a json file", "", "app/models.py", "UserRepository.load_users"},
		{"send a welcome email to a new user", "python", "app/models.py", "send_welcome_email"},
		{"find the handler for a request path", "typescript", "web/router.ts", "matchRoute"},
		{"format money as currency", "js", "web/legacy.js", "formatCurrency"},
		{"ring buffer push", "", "native/ring.c", ""},
	}
	for _, c := range cases {
		args := []string{"inspect", "semantic-search", c.q}
		if c.lang != "" {
			args = append(args, "--lang", c.lang)
		}
		res := semResults(t, runAW(t, ws, nil, args...))
		if len(res) == 0 || res[0].Path != c.path || res[0].Symbol != c.symbol {
			t.Errorf("%q: got %+v", c.q, res)
		}
	}
	res := semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "welcome email", "--lang", "markdown"))
	if len(res) != 1 || res[0].Path != "docs/guide.md" {
		t.Errorf("--lang markdown: %+v", res)
	}
}

func TestSemanticSearchIncremental(t *testing.T) {
	ws := semanticWS(t, "", shopModule)
	semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "invoice"))
	// Edit one file, add one, delete one.
	writeFile(t, filepath.Join(ws, "billing/invoice.go"), strings.Replace(shopModule["billing/invoice.go"], "ApplyDiscount lowers the invoice total by a percentage", "ApplyRebate refunds a loyal customer", 1))
	writeFile(t, filepath.Join(ws, "shipping/parcel.go"), "package shipping\n\n// TrackParcel asks the courier where a parcel is.\nfunc TrackParcel(id string) string { return id }\n")
	os.Remove(filepath.Join(ws, "cart/cart.go"))
	r := runAW(t, ws, nil, "inspect", "semantic-search", "where is my parcel with the courier")
	res := semResults(t, r)
	if len(res) == 0 || res[0].Symbol != "TrackParcel" {
		t.Fatalf("added file: %s", r.Stdout)
	}
	if r.field(t, ".data.index.added") != 1.0 || r.field(t, ".data.index.changed") != 1.0 || r.field(t, ".data.index.removed") != 1.0 || r.field(t, ".data.index.rebuilt") != false {
		t.Errorf("update counts: %s", r.Stdout)
	}
	res = semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "refund a loyal customer"))
	if len(res) == 0 || res[0].Path != "billing/invoice.go" || !strings.Contains(res[0].Snippet, "ApplyRebate") {
		t.Errorf("edited file: %+v", res)
	}
	for _, x := range semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "checkout the cart")) {
		if x.Path == "cart/cart.go" {
			t.Errorf("a deleted file is still found: %+v", x)
		}
	}
	// A second round of edits replaces the delta, keeping the first.
	writeFile(t, filepath.Join(ws, "shipping/label.go"), "package shipping\n\n// PrintLabel prints the address label of a parcel.\nfunc PrintLabel() {}\n")
	res = semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "courier parcel"))
	found := map[string]bool{}
	for _, x := range res {
		found[x.Symbol] = true
	}
	if !found["TrackParcel"] || !found["PrintLabel"] {
		t.Errorf("after two updates: %+v", res)
	}
	// At --tier read nothing under the workspace changes: the update is
	// made in memory for that call only.
	writeFile(t, filepath.Join(ws, "shipping/customs.go"), "package shipping\n\n// DeclareCustoms fills in the customs form.\nfunc DeclareCustoms() {}\n")
	before := treeDigest(t, ws)
	res = semResults(t, runAW(t, ws, nil, "--tier", "read", "inspect", "semantic-search", "customs form"))
	if len(res) == 0 || res[0].Symbol != "DeclareCustoms" {
		t.Errorf("read tier: %+v", res)
	}
	unchangedTree(t, before, treeDigest(t, ws))
	r = runAW(t, ws, nil, "--tier", "read", "inspect", "index", "rebuild")
	if r.Code != 1 || r.field(t, ".error.code") != "TOOL_DISABLED" {
		t.Errorf("rebuild at --tier read: %s", r.Stdout)
	}
}

func TestSemanticSearchConcurrent(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 300; i++ {
		files[fmt.Sprintf("pkg%d/f%d.go", i%17, i)] = fmt.Sprintf("package p\n\n// Step%d handles stage %d of the pipeline.\nfunc Step%d() int { return %d }\n", i, i, i, i)
	}
	files["special/unique.go"] = "package special\n\n// Frobnicate reticulates the splines.\nfunc Frobnicate() {}\n"
	ws := semanticWS(t, "", files)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			args := []string{"inspect", "semantic-search", "reticulate splines"}
			if i%3 == 0 {
				args = []string{"inspect", "index", "rebuild"}
			}
			r := runAW(t, ws, nil, args...)
			if r.Code != 0 {
				bad.Add(1)
				t.Errorf("%v: %s %s", args, r.Stdout, r.Stderr)
				return
			}
			if i%3 != 0 && r.field(t, ".data.results.0.symbol") != "Frobnicate" {
				bad.Add(1)
				t.Errorf("concurrent query: %s", r.Stdout)
			}
		}(i)
	}
	wg.Wait()
	if bad.Load() == 0 {
		r := runAW(t, ws, nil, "inspect", "index", "status")
		if r.field(t, ".data.files") != 301.0 {
			t.Errorf("after concurrent builds: %s", r.Stdout)
		}
	}
}

func TestSemanticSearchCorruptIndex(t *testing.T) {
	ws := semanticWS(t, "", shopModule)
	semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "invoice"))
	idx := filepath.Join(ws, ".agentic", "index")
	segs, _ := filepath.Glob(filepath.Join(idx, "seg-*.bm25"))
	if len(segs) != 1 {
		t.Fatalf("segments: %v", segs)
	}
	damage := []struct {
		name string
		do   func()
	}{
		{"manifest garbage", func() { os.WriteFile(filepath.Join(idx, "manifest"), []byte("not an index"), 0o644) }},
		{"manifest bit flip", func() { flip(t, filepath.Join(idx, "manifest"), 40) }},
		{"segment truncated", func() { truncateHalf(t, idx) }},
		{"segment bit flips", func() {
			s, _ := filepath.Glob(filepath.Join(idx, "seg-*.bm25"))
			for _, off := range []int{100, 300, 700, 1500} {
				flip(t, s[0], off)
			}
		}},
		{"segment missing", func() {
			s, _ := filepath.Glob(filepath.Join(idx, "seg-*.bm25"))
			os.Remove(s[0])
		}},
	}
	for _, d := range damage {
		d.do()
		st := runAW(t, ws, nil, "inspect", "index", "status")
		mustOK(t, st, d.name+": status")
		r := runAW(t, ws, nil, "inspect", "semantic-search", "where is the invoice date parsed")
		if r.Code != 0 {
			t.Fatalf("%s: %s %s", d.name, r.Stdout, r.Stderr)
		}
		res := semResults(t, r)
		if len(res) == 0 || res[0].Symbol != "ParseInvoiceDate" {
			t.Errorf("%s: after the rebuild: %s", d.name, r.Stdout)
		}
		if d.name != "segment bit flips" && r.field(t, ".data.index.rebuilt") != true {
			t.Errorf("%s: not rebuilt: %s (status said %s)", d.name, r.Stdout, st.Stdout)
		}
	}
}

func flip(t *testing.T, path string, off int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off%len(b)] ^= 0x5a
	os.WriteFile(path, b, 0o644)
}

func truncateHalf(t *testing.T, idx string) {
	s, _ := filepath.Glob(filepath.Join(idx, "seg-*.bm25"))
	fi, err := os.Stat(s[0])
	if err != nil {
		t.Fatal(err)
	}
	os.Truncate(s[0], fi.Size()/2)
}

func TestSemanticSearchNeverIndexesDeniedOrIgnored(t *testing.T) {
	ws := semanticWS(t, `{"denyPaths": [".env*", "secrets/**"], "list": {"ignore": ["node_modules", ".git", "vendored"]}}`, map[string]string{
		"main.go":                 "package main\n\n// Start boots the service.\nfunc Start() {}\n",
		".env.local":              "zanzibarcredential=1\n",
		"secrets/keys.go":         "package secrets\n\n// zanzibarcredential opens the vault.\nfunc Vault() {}\n",
		"vendored/lib.go":         "package lib\n\n// zanzibarcredential in a vendored copy.\nfunc Lib() {}\n",
		"build/out.go":            "package out\n\n// zanzibarcredential in generated output.\nfunc Out() {}\n",
		".gitignore":              "build/\n",
		"node_modules/x/index.js": "// zanzibarcredential\nfunction x() {}\n",
	})
	r := runAW(t, ws, nil, "inspect", "semantic-search", "zanzibarcredential")
	if res := semResults(t, r); len(res) != 0 {
		t.Fatalf("denied or ignored files were found: %s", r.Stdout)
	}
	ents, _ := os.ReadDir(filepath.Join(ws, ".agentic", "index"))
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(ws, ".agentic", "index", e.Name()))
		for _, w := range []string{"zanzibar", "secrets/keys.go", ".env.local", "vendored", "build/out.go"} {
			if strings.Contains(string(b), w) {
				t.Errorf("the index file %s holds %q", e.Name(), w)
			}
		}
	}
	if semResults(t, runAW(t, ws, nil, "inspect", "semantic-search", "boot the service"))[0].Path != "main.go" {
		t.Error("the allowed file is not found")
	}
	// A file that becomes denied drops out of the index.
	writeConfig(t, ws, `{"denyPaths": [".env*", "secrets/**", "main.go"]}`)
	r = runAW(t, ws, nil, "inspect", "semantic-search", "boot the service")
	if res := semResults(t, r); len(res) != 0 || r.field(t, ".data.index.removed") != 1.0 {
		t.Errorf("a newly denied file: %s", r.Stdout)
	}
	for _, p := range []string{"secrets", ".env.local"} {
		r = runAW(t, ws, nil, "inspect", "semantic-search", "vault", p)
		if r.Code != 1 || r.field(t, ".error.code") != "PATH_ESCAPE" {
			t.Errorf("PATH %s: %s", p, r.Stdout)
		}
	}
}

func TestSemanticSearchRefusals(t *testing.T) {
	ws := semanticWS(t, "", shopModule)
	cases := []struct {
		args []string
		code string
		says string
	}{
		{[]string{"inspect", "semantic-search", ""}, "INVALID_INPUT", "query is required"},
		{[]string{"inspect", "semantic-search", "how is it the"}, "INVALID_INPUT", "no searchable word"},
		{[]string{"inspect", "semantic-search", strings.Repeat("word ", 300)}, "INVALID_INPUT", "at most 1000"},
		{[]string{"inspect", "semantic-search", "invoice", "--limit", "1000"}, "INVALID_INPUT", "1 to 100"},
		{[]string{"inspect", "semantic-search", "invoice", "--lang", "klingon"}, "INVALID_INPUT", "not a language"},
		{[]string{"inspect", "semantic-search", "invoice", "no/such/dir"}, "NOT_FOUND", "does not exist"},
		{[]string{"inspect", "semantic-search", "invoice", "../outside"}, "PATH_ESCAPE", ""},
	}
	for _, c := range cases {
		r := runAW(t, ws, nil, c.args...)
		if r.Code == 0 || r.field(t, ".error.code") != c.code || !strings.Contains(r.field(t, ".error.message").(string), c.says) {
			t.Errorf("%q: exit %d %s", c.args, r.Code, r.Stdout)
		}
	}
}

// embedServer answers /v1/embeddings with fixed vectors: the query (the
// first input) and any text mentioning bananas point one way, the rest the
// other.
type embedServer struct {
	srv      *httptest.Server
	calls    atomic.Int32
	inputs   atomic.Int32
	auth     atomic.Value
	fail     atomic.Bool
	lastBody atomic.Value
}

func newEmbedServer(t *testing.T) *embedServer {
	e := &embedServer{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.calls.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		e.auth.Store(r.Header.Get("Authorization"))
		if e.fail.Load() {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		e.lastBody.Store(req.Model)
		e.inputs.Add(int32(len(req.Input)))
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, in := range req.Input {
			v := []float32{0, 1}
			if i == 0 || strings.Contains(in, "banana") {
				v = []float32{1, 0}
			}
			data = append(data, item{i, v})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func TestSemanticSearchEmbeddings(t *testing.T) {
	e := newEmbedServer(t)
	files := map[string]string{
		"fruit/process.go": "package fruit\n\n// ProcessFruit processes fruit: process fruit, fruit process.\nfunc ProcessFruit() {}\n",
		"fruit/other.go":   "package fruit\n\n// Peel handles fruit such as a banana.\nfunc Peel() {}\n",
	}
	cfg := func(mode int) string {
		return fmt.Sprintf(`{"permissionMode": %d, "search": {"embeddings": {"baseUrl": %q, "model": "test-embed", "apiKeyEnv": "AW_TEST_EMBED_KEY"}}}`, mode, e.srv.URL+"/v1")
	}
	ws := semanticWS(t, cfg(2), files)
	env := []string{"AW_TEST_EMBED_KEY=sekrit"}

	// BM25 alone would put ProcessFruit first; the vectors prefer Peel.
	r := runAWEnv(t, ws, nil, env, "inspect", "semantic-search", "process fruit")
	res := semResults(t, r)
	if r.field(t, ".data.ranking") != "hybrid" || r.field(t, ".data.embeddings.status") != "used" || len(res) < 2 || res[0].Symbol != "Peel" {
		t.Fatalf("hybrid ranking: %s", r.Stdout)
	}
	if e.auth.Load() != "Bearer sekrit" || e.lastBody.Load() != "test-embed" || e.inputs.Load() != int32(1+len(res)) {
		t.Errorf("request: auth %v model %v inputs %d", e.auth.Load(), e.lastBody.Load(), e.inputs.Load())
	}
	// Chunk vectors are cached by content: only the query is sent again.
	r = runAWEnv(t, ws, nil, env, "inspect", "semantic-search", "process fruit")
	if r.field(t, ".data.embeddings.cached") != float64(len(res)) || r.field(t, ".data.embeddings.sent") != 1.0 || e.inputs.Load() != int32(2+len(res)) {
		t.Errorf("cache: %s", r.Stdout)
	}
	// A failing endpoint leaves the BM25 ranking, and says so.
	e.fail.Store(true)
	r = runAWEnv(t, ws, nil, env, "inspect", "semantic-search", "process fruit")
	if res := semResults(t, r); r.field(t, ".data.embeddings.status") != "failed" || r.field(t, ".data.ranking") != "bm25" || res[0].Symbol != "ProcessFruit" {
		t.Errorf("failing endpoint: %s", r.Stdout)
	}
	e.fail.Store(false)

	// The gate: the endpoint is web egress. Plan mode without an approved
	// plan, Manual mode and a tier below exec never reach it.
	calls := e.calls.Load()
	for _, c := range []struct {
		mode int
		tier string
		says string
	}{
		{1, "", "approved plan"},
		{0, "", "Manual mode"},
		{2, "write", "--tier"},
	} {
		writeConfig(t, ws, cfg(c.mode))
		args := []string{"inspect", "semantic-search", "process fruit"}
		if c.tier != "" {
			args = append([]string{"--tier", c.tier}, args...)
		}
		r := runAWEnv(t, ws, nil, env, args...)
		res := semResults(t, r)
		if r.field(t, ".data.embeddings.status") != "skipped" || r.field(t, ".data.ranking") != "bm25" || res[0].Symbol != "ProcessFruit" ||
			!strings.Contains(r.field(t, ".data.embeddings.reason").(string), c.says) {
			t.Errorf("mode %d tier %q: %s", c.mode, c.tier, r.Stdout)
		}
		if r.Code == 3 || strings.Contains(string(r.Stdout), "pending_approval") {
			t.Errorf("semantic search was staged: %s", r.Stdout)
		}
	}
	if e.calls.Load() != calls {
		t.Errorf("the endpoint was called %d times where the gate forbids it", e.calls.Load()-calls)
	}
	// Off by default: no embeddings state at all.
	writeConfig(t, ws, `{"permissionMode": 2}`)
	r = runAWEnv(t, ws, nil, env, "inspect", "semantic-search", "process fruit")
	if _, ok := r.Env["data"].(map[string]any)["embeddings"]; ok || e.calls.Load() != calls {
		t.Errorf("embeddings off by default: %s", r.Stdout)
	}
}

// semWatched runs a query and says whether the index learnt what changed
// from the broker's watch of the tree (rather than statting every file).
func semWatched(t *testing.T, ws, query string) ([]semResult, bool) {
	t.Helper()
	r := runAW(t, ws, nil, "inspect", "semantic-search", query)
	return semResults(t, r), r.field(t, ".data.index.watched") == true
}

// treeWatchReady waits until the workspace's broker watches the tree.
func treeWatchReady(t *testing.T, ws string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		r := runAW(t, ws, nil, "broker", "status")
		if held, ok := r.field(t, ".data.held").([]any); ok {
			for _, h := range held {
				if h := h.(map[string]any); h["service"] == "tree" && h["state"] == "ready" {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the broker's watch of the tree never became ready")
}

// symbols are the symbols of results.
func symbols(res []semResult) map[string]bool {
	out := map[string]bool{}
	for _, x := range res {
		out[x.Symbol] = true
	}
	return out
}

// With the broker watching the tree, a query looks again only at the
// paths that changed, and finds every kind of change: content with the
// stat put back, a new file, a deleted one, a new directory, a .gitignore.
// Without the broker it walks, with the same answers.
func TestSemanticSearchWatched(t *testing.T) {
	testenv.NeedProc(t)
	ws := semanticWS(t, "", shopModule)
	writeFile(t, filepath.Join(ws, "assets/logo.bin"), "PNG\x00\x01\x02")
	writeFile(t, filepath.Join(ws, ".gitignore"), "drafts/\n")
	writeFile(t, filepath.Join(ws, "drafts/refund.go"), "package drafts\n\n// RefundPolicy says when money goes back.\nfunc RefundPolicy() {}\n")
	semWatched(t, ws, "invoice")
	treeWatchReady(t, ws)
	semWatched(t, ws, "invoice") // the first answer of a ready watch: a walk, and a token
	if _, watched := semWatched(t, ws, "invoice"); !watched {
		t.Fatal("nothing changed, yet the query walked the tree")
	}

	// Same size, same mtime, same inode: only the watch can tell.
	inv := filepath.Join(ws, "billing/invoice.go")
	fi, _ := os.Stat(inv)
	writeFile(t, inv, strings.Replace(shopModule["billing/invoice.go"], "ApplyDiscount lowers", "ApplyDiscount reduces", 1)[:fi.Size()])
	os.Chtimes(inv, fi.ModTime(), fi.ModTime())
	res, watched := semWatched(t, ws, "reduces the invoice total")
	if !watched || len(res) == 0 || !strings.Contains(res[0].Snippet, "reduces") {
		t.Fatalf("content changed under the same stat (watched %v): %+v", watched, res)
	}

	writeFile(t, filepath.Join(ws, "cart/wishlist.go"), "package cart\n\n// SaveForLater keeps an item on the wishlist.\nfunc SaveForLater() {}\n")
	os.Remove(filepath.Join(ws, "cart/cart.go"))
	res, watched = semWatched(t, ws, "wishlist item checkout cart")
	if got := symbols(res); !watched || !got["SaveForLater"] || got["Checkout"] || got["AddItem"] {
		t.Fatalf("a new file and a deleted one (watched %v): %+v", watched, res)
	}

	// A new directory: walked for once, watched from then on.
	writeFile(t, filepath.Join(ws, "shipping/zone/rates.go"), "package zone\n\n// PostageRate prices a parcel by weight.\nfunc PostageRate(kg int) int { return kg }\n")
	if res, _ := semWatched(t, ws, "postage rate parcel weight"); !symbols(res)["PostageRate"] {
		t.Fatalf("a file in a new directory: %+v", res)
	}
	writeFile(t, filepath.Join(ws, "shipping/zone/express.go"), "package zone\n\n// ExpressSurcharge adds the fee of next-day delivery.\nfunc ExpressSurcharge() int { return 5 }\n")
	if res, watched := semWatched(t, ws, "next-day delivery fee"); !watched || !symbols(res)["ExpressSurcharge"] {
		t.Fatalf("a file in a directory made after the watch (watched %v): %+v", watched, res)
	}

	// A .gitignore changes what is indexed: the query walks, and the watch
	// starts again, now over the directory that was ignored.
	writeFile(t, filepath.Join(ws, ".gitignore"), "shipping/\n")
	res, _ = semWatched(t, ws, "next-day delivery fee postage refund policy money")
	if got := symbols(res); got["ExpressSurcharge"] || got["PostageRate"] || !got["RefundPolicy"] {
		t.Fatalf("after a .gitignore change: %+v", res)
	}
	treeWatchReady(t, ws)
	semWatched(t, ws, "refund")
	refund := filepath.Join(ws, "drafts/refund.go")
	fi, _ = os.Stat(refund)
	writeFile(t, refund, "package drafts\n\n// RefundWindow says when money goes back.\nfunc RefundWindow() {}\n")
	os.Chtimes(refund, fi.ModTime(), fi.ModTime())
	if res, watched := semWatched(t, ws, "when money goes back"); !watched || !symbols(res)["RefundWindow"] {
		t.Fatalf("a change in a directory no longer ignored (watched %v): %+v", watched, res)
	}

	// The broker gone: the query walks, with the same answers.
	mustOK(t, runAW(t, ws, nil, "broker", "stop"), "broker stop")
	writeFile(t, filepath.Join(ws, "cart/coupon.go"), "package cart\n\n// RedeemCoupon takes a voucher code off the price.\nfunc RedeemCoupon() {}\n")
	writeConfig(t, ws, `{"broker": {"mode": "per-call"}}`)
	res, watched = semWatched(t, ws, "voucher code off the price")
	if watched || !symbols(res)["RedeemCoupon"] {
		t.Fatalf("per call (watched %v): %+v", watched, res)
	}
	if r := runAW(t, ws, nil, "broker", "status"); r.field(t, ".data.running") == true {
		t.Fatalf("per call, a query started a broker: %s", r.Stdout)
	}
}
