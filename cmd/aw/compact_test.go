package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/compact"
	"github.com/agentic-workspace/aw/engine/dispatch"
)

// Compaction tests: goldens on one envelope of every operation, and the
// drill of issue 7 (every id and resume call survives a small budget, and
// `aw inspect changes` alone recovers the same set).

var updateCompact = flag.Bool("update", false, "re-capture testdata/compact from a live session and rewrite the goldens")

// smallBudget is the drill's budget: far below what most envelopes take.
const smallBudget = 700

// session runs agent calls against one workspace, as `aw call` (the JSON
// form an MCP client sends), and human verbs with the approver token.
type session struct {
	t     testing.TB
	dir   string
	human []string // environment of the human's harness
	agent []string
}

func newSession(t testing.TB, settings string) *session {
	t.Helper()
	dir := mcpWorkspace(t, settings)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "aw"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "aw", "approver.token"), []byte("tok-compact\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &session{t: t, dir: dir,
		human: []string{"XDG_CONFIG_HOME=" + home, "AW_APPROVER_TOKEN=tok-compact", "GH_TOKEN="},
		agent: []string{"XDG_CONFIG_HOME=" + home, "GH_TOKEN=", "AW_HOST_TOKEN="}}
}

// call runs `aw call TOOL JSON` and returns the envelope's JSON text.
func (s *session) call(tool, req string) []byte {
	s.t.Helper()
	return runAWEnv(s.t, s.dir, nil, s.agent, "call", tool, req).Stdout
}

func (s *session) decide(tool, req string) []byte {
	s.t.Helper()
	return runAWEnv(s.t, s.dir, nil, s.human, "call", tool, req).Stdout
}

func field(t testing.TB, raw []byte, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	got, err := lookup(v, path)
	if err != nil {
		t.Fatalf("%s: %v in %s", path, err, raw)
	}
	return fmt.Sprint(got)
}

// everyOperation drives one call of every operation aw has and returns the
// envelopes by operation, normalized.
func everyOperation(t testing.TB) map[string][]byte {
	s := newSession(t, `{"permissionMode": 1, "commands": {"allow": ["echo", "sleep"], "testCommand": "echo 2 passed, 1 failed"}, "github": {"apiUrl": "http://127.0.0.1:9"}, "host": {"url": "http://127.0.0.1:9"}}`)
	out := map[string][]byte{}
	keep := func(raw []byte) []byte {
		op := field(t, raw, ".operation")
		if _, ok := out[op]; !ok {
			out[op] = raw
		}
		return raw
	}
	prop := keep(s.call("workspace_plan", `{"action":"propose","title":"Add a greeting","objective":"Greet the user","steps":["write greeting.txt",{"text":"check it","kind":"command"}],"files":[{"path":"greeting.txt","change":"create"}],"commands":[{"executable":"echo","args":["hi"]}]}`))
	plan := field(t, prop, ".data.planId")
	keep(s.call("approval", `{"action":"list"}`))
	keep(s.call("approval", fmt.Sprintf(`{"action":"show","id":%q}`, plan)))
	keep(s.decide("approval", fmt.Sprintf(`{"action":"accept","id":%q,"note":"go ahead"}`, plan)))
	keep(s.call("workspace_plan", `{"action":"current"}`))
	keep(s.call("workspace_plan", fmt.Sprintf(`{"action":"show","plan_id":%q}`, plan)))
	keep(s.call("workspace_plan", `{"action":"list"}`))
	for _, req := range []string{
		`{"action":"capabilities"}`, `{"action":"overview","depth":1}`, `{"action":"list"}`,
		`{"action":"read","path":"README.md"}`, `{"action":"search","pattern":"line","fixed":true}`,
		`{"action":"find","pattern":"*.md"}`, `{"action":"stat","path":"README.md"}`,
		`{"action":"semantic_search","query":"demo"}`, `{"action":"index_status"}`, `{"action":"index_rebuild"}`,
	} {
		keep(s.call("workspace_inspect", req))
	}
	prev := keep(s.call("workspace_edit", `{"action":"preview","operations":[{"type":"create","path":"greeting.txt","content":"hello\n"}]}`))
	tx := field(t, prev, ".data.transactionId")
	keep(s.call("workspace_edit", fmt.Sprintf(`{"action":"commit","transaction_id":%q}`, tx)))
	keep(s.call("workspace_edit", `{"action":"apply","operations":[{"type":"replace","path":"README.md","search":"line two","replacement":"line 2"}]}`))
	keep(s.call("workspace_edit", fmt.Sprintf(`{"action":"show","transaction_id":%q}`, tx)))
	keep(s.call("workspace_edit", `{"action":"list"}`))
	keep(s.call("workspace_edit", fmt.Sprintf(`{"action":"rollback","transaction_id":%q}`, tx)))
	keep(s.call("workspace_ast", `{"action":"grep","pattern":"greet($X)"}`))
	keep(s.call("workspace_ast", `{"action":"edit","pattern":"greet($X)","rewrite":"hello($X)"}`))
	keep(s.call("workspace_ast", fmt.Sprintf(`{"action":"resolve","edit_id":%q,"decision":"accept"}`, tx)))
	for _, req := range []string{
		`{"action":"write","name":"todo","content":"first"}`, `{"action":"append","name":"todo","content":"second"}`,
		`{"action":"read","name":"todo"}`, `{"action":"list"}`, `{"action":"delete","name":"todo"}`,
	} {
		keep(s.call("workspace_notes", req))
	}
	keep(s.call("config", `{"action":"list"}`))
	keep(s.call("config", `{"action":"get","key":"permissionMode"}`))
	keep(s.decide("config", `{"action":"set","key":"maxToolResultChars","value":"20000"}`))
	keep(s.call("config", `{"action":"init"}`))
	// The host verbs without a token (none is set): their refusals.
	for _, req := range []string{`{"action":"ls"}`, `{"action":"get","path":"a.md"}`, `{"action":"put","path":"a.md","content":"x"}`,
		`{"action":"rm","path":"a.md"}`, `{"action":"history","path":"a.md"}`, `{"action":"watch","timeout_seconds":1}`} {
		keep(s.call("host", req))
	}
	if _, err := dispatch.Find("workspace_command", "run"); err == nil {
		ran := keep(s.call("workspace_command", `{"action":"run","executable":"echo","args":["hello"]}`))
		keep(s.call("workspace_command", fmt.Sprintf(`{"action":"output","job_id":%q,"since":"o:0,e:0"}`, field(t, ran, ".data.jobId"))))
		keep(s.call("workspace_command", fmt.Sprintf(`{"action":"wait","job_id":%q,"timeout_seconds":5}`, field(t, ran, ".data.jobId"))))
		keep(s.call("workspace_command", fmt.Sprintf(`{"action":"diff","job_id":%q}`, field(t, ran, ".data.jobId"))))
		keep(s.call("workspace_command", fmt.Sprintf(`{"action":"undo","job_id":%q}`, field(t, ran, ".data.jobId"))))
		start := keep(s.call("workspace_command", `{"action":"start","executable":"sleep","args":["30"]}`))
		job := field(t, start, ".data.jobId")
		keep(s.call("workspace_command", fmt.Sprintf(`{"action":"status","job_id":%q}`, job)))
		keep(s.call("workspace_command", fmt.Sprintf(`{"action":"cancel","job_id":%q}`, job)))
		keep(s.call("workspace_command", `{"action":"list"}`))
		keep(s.call("workspace_command", `{"action":"test"}`))
	}
	if _, err := dispatch.Find("policy", "check_command"); err == nil {
		keep(s.call("policy", `{"action":"check_command","line":"echo hi"}`))
		keep(s.call("policy", `{"action":"check_path","path":".agentic/config.json","write":true}`))
	}
	if _, err := dispatch.Find("workspace_tasks", "create"); err == nil {
		created := keep(s.call("workspace_tasks", `{"action":"create","title":"Greeting","items":[{"text":"write it","priority":"high"},{"text":"check it","depends_on":["1"]}]}`))
		board := field(t, created, ".data.board.id")
		item := field(t, created, ".data.board.items.0.id")
		keep(s.call("workspace_tasks", `{"action":"list"}`))
		for _, req := range []string{
			`{"action":"show","board_id":%[1]q}`, `{"action":"add","board_id":%[1]q,"items":[{"text":"third"}]}`,
			`{"action":"update","board_id":%[1]q,"item_id":%[2]q,"status":"completed","evidence":"greeting.txt written"}`,
			`{"action":"note","board_id":%[1]q,"text":"halfway"}`, `{"action":"checkpoint","board_id":%[1]q,"label":"mid"}`,
			`{"action":"next","board_id":%[1]q}`, `{"action":"remove","board_id":%[1]q,"item_id":%[2]q,"detach":true}`,
			`{"action":"archive","board_id":%[1]q}`, `{"action":"reopen","board_id":%[1]q}`,
		} {
			keep(s.call("workspace_tasks", fmt.Sprintf(req, board, item)))
		}
		keep(s.call("workspace_tasks", `{"action":"todo_write","todos":[{"content":"read the parser","status":"completed"},{"content":"fix the off-by-one","status":"in_progress"},{"content":"add a test"}]}`))
		keep(s.call("workspace_tasks", `{"action":"todo_read"}`))
	}
	// GitHub actions without a token fail before any request (and the API
	// URL is a closed loopback port): their failure envelopes are captured.
	for _, row := range dispatch.Table() {
		if row.Tool.Noun == "vcs" && (strings.HasPrefix(row.Name, "gh_") || strings.HasPrefix(row.Name, "issue_") || strings.HasPrefix(row.Name, "pr_")) {
			keep(s.call("workspace_vcs", fmt.Sprintf(`{"action":%q}`, row.Name)))
		}
	}
	keep(s.call("inspect", `{"action":"changes"}`))
	keep(s.decide("prompt", `{"action":"preprocess","message":"what next?"}`))
	keep(s.call("workspace_plan", fmt.Sprintf(`{"action":"complete","plan_id":%q,"summary":"greeted"}`, plan)))
	second := s.call("workspace_plan", `{"action":"propose","title":"Second","objective":"o","steps":["s"]}`)
	keep(s.decide("approval", fmt.Sprintf(`{"action":"deny","id":%q,"reason":"not now"}`, field(t, second, ".data.planId"))))
	keep(s.decide("approval", `{"action":"token"}`))
	keep(s.decide("store", `{"action":"gc"}`))
	root, _ := filepath.EvalSymlinks(s.dir)
	norm := map[string][]byte{}
	for op, raw := range out {
		norm[op] = normalize(raw, root)
	}
	for _, more := range []func(testing.TB) map[string][]byte{vcsOperations, researchOperations, browserOperations, agentOperations, askOperations, lspOperations, debugOperations} {
		for op, raw := range more(t) {
			if _, ok := norm[op]; !ok {
				norm[op] = raw
			}
		}
	}
	return norm
}

// caller runs `aw call` in one workspace and keeps the first envelope of
// each operation, normalized against that workspace's root.
type caller struct {
	t   testing.TB
	dir string
	env []string
	out map[string][]byte
}

func newCaller(t testing.TB, dir string) *caller {
	return &caller{t: t, dir: dir, out: map[string][]byte{}}
}

func (c *caller) call(tool, req string) []byte {
	c.t.Helper()
	raw := runAWEnv(c.t, c.dir, nil, c.env, "call", tool, req).Stdout
	op := field(c.t, raw, ".operation")
	if _, ok := c.out[op]; !ok {
		root, _ := filepath.EvalSymlinks(c.dir)
		c.out[op] = normalize(raw, root)
	}
	return raw
}

// vcsOperations: every local vcs action on a small repository, and a push
// to a bare remote next to it.
func vcsOperations(t testing.TB) map[string][]byte {
	tt := t.(*testing.T)
	dir := vcsRepo(tt, `{"permissionMode": 2, "allowDestructiveEdits": true}`)
	bare := filepath.Join(tt.TempDir(), "remote.git")
	git(tt, filepath.Dir(bare), "init", "-q", "--bare", "-b", "main", bare)
	git(tt, dir, "remote", "add", "origin", bare)
	c := newCaller(t, dir)
	c.env = gitEnv
	write(tt, dir, "a.txt", "one\n2\nthree\n")
	c.call("workspace_vcs", `{"action":"status"}`)
	c.call("workspace_vcs", `{"action":"diff"}`)
	c.call("workspace_vcs", `{"action":"add","paths":["a.txt"]}`)
	c.call("workspace_vcs", `{"action":"commit","message":"second line as a digit"}`)
	c.call("workspace_vcs", `{"action":"log","limit":5}`)
	c.call("workspace_vcs", `{"action":"show","rev":"HEAD"}`)
	c.call("workspace_vcs", `{"action":"branch","name":"feature","create":true}`)
	c.call("workspace_vcs", `{"action":"checkout","rev":"feature"}`)
	c.call("workspace_vcs", `{"action":"push"}`)
	fresh := newCaller(t, tt.TempDir())
	os.MkdirAll(filepath.Join(fresh.dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(fresh.dir, ".agentic", "config.json"), []byte(`{"permissionMode": 2}`), 0o644)
	fresh.call("workspace_vcs", `{"action":"init","branch":"main"}`)
	maps.Copy(c.out, fresh.out)
	return c.out
}

// researchOperations: a research project against the fake search
// providers and a page on loopback (research.allowPrivateNetwork).
func researchOperations(t testing.TB) map[string][]byte {
	tt := t.(*testing.T)
	f := newFakeSearch(tt)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<!doctype html><title>Tram lines</title><main><h1>Tram lines</h1><p>Line 4 has fourteen stops and runs every ten minutes.</p><a href=\"/timetable\">Timetable</a></main>")
	}))
	tt.Cleanup(page.Close)
	c := newCaller(t, researchWorkspace(tt, 2, f, true, ""))
	start := c.call("workspace_research", `{"action":"start","title":"Tram network"}`)
	id := field(t, start, ".data.researchId")
	c.call("workspace_research", fmt.Sprintf(`{"action":"search","query":"tram","research_id":%q,"limit":3}`, id))
	fetched := c.call("workspace_research", fmt.Sprintf(`{"action":"fetch","url":%q,"research_id":%q}`, page.URL+"/lines", id))
	src := field(t, fetched, ".data.sourceId")
	c.call("workspace_research", fmt.Sprintf(`{"action":"note","research_id":%q,"kind":"finding","text":"Line 4 has fourteen stops.","source_id":%q}`, id, src))
	c.call("workspace_research", `{"action":"list"}`)
	c.call("workspace_research", fmt.Sprintf(`{"action":"show","research_id":%q}`, id))
	c.call("workspace_research", fmt.Sprintf(`{"action":"deep","research_id":%q,"objective":"every line"}`, id))
	c.call("workspace_research", fmt.Sprintf(`{"action":"archive","research_id":%q}`, id))
	return c.out
}

// lspOperations: every lsp action against gopls on a small module, and
// the broker holding it.
func lspOperations(t testing.TB) map[string][]byte {
	needGopls(t)
	dir := lspModule(t, "")
	c := newCaller(t, dir)
	c.env = cacheEnv()
	pos := `"file":"main.go","line":17,"symbol":"helper"`
	for _, action := range []string{"definition", "type_definition", "implementation", "references", "hover", "code_actions"} {
		c.call("workspace_lsp", `{"action":"`+action+`",`+pos+`}`)
	}
	c.call("workspace_lsp", `{"action":"symbols","file":"main.go"}`)
	c.call("workspace_lsp", `{"action":"diagnostics","file":"util.go"}`)
	c.call("workspace_lsp", `{"action":"rename","file":"util.go","line":4,"symbol":"helper","new_name":"double"}`)
	c.call("workspace_lsp", `{"action":"status"}`)
	c.call("broker", `{"action":"status"}`)
	c.call("workspace_lsp", `{"action":"reload"}`)
	c.call("broker", `{"action":"stop"}`)
	return c.out
}

// debugOperations: a delve session through every debug action, and an
// eval cell.
func debugOperations(t testing.TB) map[string][]byte {
	needDlv(t)
	dir := goDebugWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["go", "dlv", "python3"]}}`)
	c := newCaller(t, dir)
	c.env = append(cacheEnv(), "PATH="+evalPath(t))
	c.call("workspace_debug", `{"action":"adapters"}`)
	c.call("workspace_debug", `{"action":"breakpoints","file":"main.go","lines":[6]}`)
	c.call("workspace_debug", `{"action":"launch","program":".","wait_seconds":120}`)
	c.call("workspace_debug", `{"action":"status"}`)
	c.call("workspace_debug", `{"action":"threads"}`)
	c.call("workspace_debug", `{"action":"stack"}`)
	c.call("workspace_debug", `{"action":"scopes","frame_id":1000}`)
	c.call("workspace_debug", `{"action":"variables","reference":1000}`)
	c.call("workspace_debug", `{"action":"evaluate","expression":"a+b"}`)
	c.call("workspace_debug", `{"action":"step_over"}`)
	c.call("workspace_debug", `{"action":"step_in"}`)
	c.call("workspace_debug", `{"action":"step_out"}`)
	c.call("workspace_debug", `{"action":"pause"}`)
	c.call("workspace_debug", `{"action":"continue"}`)
	c.call("workspace_debug", `{"action":"output"}`)
	c.call("workspace_debug", `{"action":"attach","port":9}`)
	c.call("workspace_debug", `{"action":"terminate"}`)
	c.call("workspace_eval", `{"action":"run","code":"1+1","description":"a trivial cell"}`)
	// The adapter's path and the sandbox's caches live under the home.
	if u, err := user.Current(); err == nil && u.HomeDir != "/" {
		home := u.HomeDir
		for op, raw := range c.out {
			c.out[op] = bytes.ReplaceAll(raw, []byte(home+"/"), []byte("/home/user/"))
		}
	}
	return c.out
}

// browserOperations: a Chromium session on a loopback page.
func browserOperations(t testing.TB) map[string][]byte {
	tt := t.(*testing.T)
	requireChromium(tt)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<!doctype html><title>Login</title><h1>Sign in</h1><form><input id=\"user\" name=\"user\"><button type=\"button\" onclick=\"document.title='Signed in'\">Continue</button></form>")
	}))
	tt.Cleanup(page.Close)
	c := newCaller(t, browserWorkspace(tt, 2, ""))
	open := c.call("workspace_browser", fmt.Sprintf(`{"action":"open","url":%q}`, page.URL+"/login"))
	sid := field(t, open, ".data.sessionId")
	defer c.call("workspace_browser", fmt.Sprintf(`{"action":"close","session_id":%q}`, sid))
	c.call("workspace_browser", fmt.Sprintf(`{"action":"read","session_id":%q}`, sid))
	c.call("workspace_browser", fmt.Sprintf(`{"action":"control","session_id":%q,"type":"type","selector":"#user","text":"ada"}`, sid))
	c.call("workspace_browser", `{"action":"list"}`)
	c.call("workspace_browser", fmt.Sprintf(`{"action":"close","session_id":%q}`, sid))
	return c.out
}

var (
	idPattern   = regexp.MustCompile(`\b(tx|approval|plan|job|board|item|research|source|query|run|checkpoint|session|note|question)_[0-9a-z]{12,}\b`)
	portPattern = regexp.MustCompile(`127\.0\.0\.1:\d{4,5}\b`) // a test server's port, not a fixed closed one
	hexPattern  = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	commitHash  = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	timePattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	pidPattern  = regexp.MustCompile(`"(pid|durationMs|mtime|age|expiresIn)":("[^"]*"|\d+)`)
)

// normalize makes a captured envelope stable: ids numbered in order of
// appearance (same length), hashes, times, the root and run-dependent
// numbers replaced.
func normalize(raw []byte, root string) []byte {
	ids := map[string]string{}
	s := strings.ReplaceAll(string(raw), root, "/ROOT")
	// The tests' own home (the sandbox's toolchain caches live under it).
	if home := os.Getenv("HOME"); len(home) > 1 {
		s = strings.ReplaceAll(s, home, "/HOME")
	}
	s = idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if n, ok := ids[id]; ok {
			return n
		}
		prefix := id[:strings.IndexByte(id, '_')+1]
		n := fmt.Sprintf("%d", len(ids)+1)
		n = prefix + strings.Repeat("0", len(id)-len(prefix)-len(n)) + n
		ids[id] = n
		return n
	})
	s = hexPattern.ReplaceAllString(s, strings.Repeat("0", 64))
	s = commitHash.ReplaceAllString(s, strings.Repeat("c", 40))
	s = timePattern.ReplaceAllString(s, "2026-01-02T03:04:05Z")
	s = pidPattern.ReplaceAllString(s, `"$1":0`)
	s = portPattern.ReplaceAllString(s, "127.0.0.1:8080")
	return []byte(s)
}

func goldenName(op string) string { return strings.ReplaceAll(op, ".", "_") }

// TestCompactGolden compacts the captured envelope of every operation at
// the default budget and at the drill's small budget. `go test -run
// TestCompactGolden -update` re-captures from a live session.
func TestCompactGolden(t *testing.T) {
	dir := filepath.Join("testdata", "compact")
	if *updateCompact {
		os.MkdirAll(dir, 0o755)
		for op, norm := range everyOperation(t) {
			var buf bytes.Buffer
			json.Indent(&buf, norm, "", "  ")
			if err := os.WriteFile(filepath.Join(dir, goldenName(op)+".in.json"), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.in.json"))
	if len(inputs) == 0 {
		t.Fatal("no captured envelopes in testdata/compact; run with -update")
	}
	have := map[string]bool{}
	for _, in := range inputs {
		raw, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		op := field(t, raw, ".operation")
		have[op] = true
		var got bytes.Buffer
		for _, budget := range []int{compact.DefaultBudget, smallBudget} {
			res, err := compact.Compact(raw, budget)
			if err != nil || !res.Envelope {
				t.Fatalf("%s: %v (envelope %v)", in, err, res.Envelope)
			}
			if res.Chars > budget {
				if err := overBudget(res); err != nil {
					t.Errorf("%s: %d chars over the budget of %d: %v", op, res.Chars, budget, err)
				}
			}
			fmt.Fprintf(&got, "# budget %d: %d -> %d chars, recovery list %v\n", budget, res.InputChars, res.Chars, res.Recovery)
			var pretty bytes.Buffer
			json.Indent(&pretty, res.JSON, "", "  ")
			got.Write(pretty.Bytes())
			got.WriteString("\n")
		}
		golden := strings.TrimSuffix(in, ".in.json") + ".golden"
		if *updateCompact {
			os.WriteFile(golden, got.Bytes(), 0o644)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("%s: no golden (run with -update): %v", op, err)
			continue
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: compaction differs from %s:\n%s", op, golden, got.String())
		}
	}
	var missing []string
	for _, row := range dispatch.Table() {
		if !have[row.Operation()] {
			missing = append(missing, row.Operation())
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no golden for %s: add a call to everyOperation, run with -update and review the new goldens", strings.Join(missing, ", "))
	}
}

// overBudget explains why an envelope compacted over its budget is wrong:
// only what is always kept (protocol, ok, operation, summary, error,
// artifacts, at most MaxFactsOverBudget facts, the staged approval's
// resume call and the ids of the recovery list) may keep it there.
func overBudget(res compact.Result) error {
	if !res.Recovery {
		return errors.New("the recovery list was not used")
	}
	var env struct {
		Summary   string `json:"summary"`
		Retention struct {
			Facts []string `json:"facts"`
		} `json:"retention"`
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(res.JSON, &env); err != nil {
		return err
	}
	if n := len([]rune(env.Summary)); n > compact.MaxSummaryChars {
		return fmt.Errorf("the summary kept %d chars", n)
	}
	if n := len(env.Retention.Facts); n > compact.MaxFactsOverBudget {
		return fmt.Errorf("%d facts kept", n)
	}
	for k := range env.Data {
		switch k {
		case "status", "mode", "approval", "recoveryFields", "recoveryFieldsOmitted":
		default:
			return fmt.Errorf("data.%s was kept", k)
		}
	}
	var fields []string
	if raw, ok := env.Data["recoveryFields"]; ok {
		json.Unmarshal(raw, &fields)
	}
	for _, f := range fields {
		path, _, _ := strings.Cut(f, "=")
		key := path[strings.LastIndexByte(path, '.')+1:]
		if key != "id" && !strings.HasSuffix(key, "Id") && !strings.HasSuffix(key, "id") {
			return fmt.Errorf("the recovery list kept %s, which is not an id", f)
		}
	}
	return nil
}

// TestCompactDrill: a Manual-mode session stages a transaction, proposes a
// plan and starts a background job (plus a board and a research project
// when those tools exist). After compacting every envelope at a small
// budget, every id and every resume call is still there, and a fresh `aw
// inspect changes` alone recovers the same live set.
func TestCompactDrill(t *testing.T) {
	s := newSession(t, `{"permissionMode": 0, "commands": {"allow": ["sleep"]}, "research": {"enabled": true}}`)
	var transcript [][]byte
	agent := func(tool, req string) []byte {
		raw := s.call(tool, req)
		transcript = append(transcript, raw)
		return raw
	}
	staged := agent("workspace_edit", `{"action":"apply","operations":[{"type":"create","path":"drill.txt","content":"drill\n"}]}`)
	if field(t, staged, ".data.status") != "pending_approval" {
		t.Fatalf("apply in Manual mode: %s", staged)
	}
	txApproval := field(t, staged, ".data.approval.id")
	agent("workspace_plan", `{"action":"propose","title":"Drill","objective":"Survive compaction","steps":["stage","start a job"]}`)
	live := map[string]bool{txApproval: true, field(t, staged, ".data.transactionId"): true}
	if _, err := dispatch.Find("workspace_command", "start"); err == nil {
		start := agent("workspace_command", `{"action":"start","executable":"sleep","args":["30"],"timeout_seconds":60}`)
		if field(t, start, ".data.status") == "pending_approval" {
			id := field(t, start, ".data.approval.id")
			// The human accepts in their harness; the agent resumes.
			s.decide("approval", fmt.Sprintf(`{"action":"accept","id":%q}`, id))
			var resume struct {
				Data struct {
					Approval struct {
						Resume struct {
							Tool      string          `json:"tool"`
							Arguments json.RawMessage `json:"arguments"`
						} `json:"resume"`
					} `json:"approval"`
				} `json:"data"`
			}
			json.Unmarshal(start, &resume)
			start = agent(resume.Data.Approval.Resume.Tool, string(resume.Data.Approval.Resume.Arguments))
		}
		job := field(t, start, ".data.jobId")
		if !strings.HasPrefix(job, "job_") {
			t.Fatalf("start: %s", start)
		}
		live[job] = true
		defer s.call("workspace_command", fmt.Sprintf(`{"action":"cancel","job_id":%q}`, job))
	}
	if _, err := dispatch.Find("workspace_tasks", "create"); err == nil {
		board := agent("workspace_tasks", `{"action":"create","title":"Drill board","items":[{"text":"first"},{"text":"second","depends_on":["1"]}]}`)
		if id, err := lookupRaw(board, ".data.board.id"); err == nil {
			live[id] = true
		} else {
			t.Fatalf("the drill's board was not created: %s", board)
		}
	}
	if _, err := dispatch.Find("workspace_research", "start"); err == nil {
		r := agent("workspace_research", `{"action":"start","title":"Drill research"}`)
		if id, err := lookupRaw(r, ".data.researchId"); err == nil {
			live[id] = true
		} else {
			t.Fatalf("the drill's research project was not started: %s", r)
		}
	}
	changes := agent("workspace_inspect", `{"action":"changes"}`)
	for _, p := range []string{".data.plans.0.id"} {
		if id, err := lookupRaw(changes, p); err == nil {
			live[id] = true
		}
	}

	// Compact the whole transcript at the small budget.
	var compacted, original bytes.Buffer
	for _, raw := range transcript {
		original.Write(raw)
		// Half the transcript arrives as tool-result strings.
		in := raw
		if len(compacted.Bytes())%2 == 0 {
			in, _ = json.Marshal(string(raw))
		}
		res, err := compact.Compact(in, smallBudget)
		if err != nil || !res.Envelope {
			t.Fatalf("compact: %v %v", err, res.Envelope)
		}
		compacted.Write(res.JSON)
		compacted.WriteByte('\n')
	}
	before := ids(original.Bytes())
	after := ids(compacted.Bytes())
	for id := range before {
		if !after[id] {
			t.Errorf("%s did not survive compaction at %d characters", id, smallBudget)
		}
	}
	for id := range live {
		if !after[id] {
			t.Errorf("live id %s is missing after compaction", id)
		}
	}
	// Every resume call survives verbatim.
	for _, raw := range transcript {
		var env struct {
			Data struct {
				Approval *struct {
					Resume json.RawMessage `json:"resume"`
				} `json:"approval"`
			} `json:"data"`
		}
		json.Unmarshal(raw, &env)
		if env.Data.Approval == nil {
			continue
		}
		var r struct {
			Tool      string         `json:"tool"`
			Arguments map[string]any `json:"arguments"`
		}
		json.Unmarshal(env.Data.Approval.Resume, &r)
		call, _ := json.Marshal(r.Arguments)
		if !bytes.Contains(compacted.Bytes(), []byte(r.Tool)) || !containsJSON(compacted.Bytes(), r.Arguments) {
			t.Errorf("resume call %s %s did not survive:\n%s", r.Tool, call, compacted.String())
		}
	}
	// A fresh `aw inspect changes` alone recovers the live set.
	fresh := ids(runAWEnv(t, s.dir, nil, s.agent, "inspect", "changes", "-o", "json").Stdout)
	for id := range live {
		if !fresh[id] {
			t.Errorf("aw inspect changes does not recover %s", id)
		}
	}
	t.Logf("%d envelopes, %d -> %d characters; live ids %v", len(transcript), original.Len(), compacted.Len(), keys(live))
}

func lookupRaw(raw []byte, path string) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	got, err := lookup(v, path)
	if err != nil {
		return "", err
	}
	return fmt.Sprint(got), nil
}

func ids(b []byte) map[string]bool {
	out := map[string]bool{}
	for _, id := range idPattern.FindAll(b, -1) {
		out[string(id)] = true
	}
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// containsJSON reports whether some compacted line holds args verbatim as
// an object value (resume.arguments).
func containsJSON(lines []byte, args map[string]any) bool {
	want, _ := json.Marshal(args)
	for _, line := range bytes.Split(lines, []byte("\n")) {
		var v any
		if json.Unmarshal(line, &v) != nil {
			continue
		}
		found := false
		var walk func(any)
		walk = func(x any) {
			switch y := x.(type) {
			case map[string]any:
				if got, _ := json.Marshal(y); bytes.Equal(got, want) {
					found = true
				}
				for _, e := range y {
					walk(e)
				}
			case []any:
				for _, e := range y {
					walk(e)
				}
			}
		}
		walk(v)
		if found {
			return true
		}
	}
	return false
}

// The filter: one object, JSON lines, and an envelope inside a JSON string;
// other values pass through; bad input is a usage error with no output.
func TestCompactFilter(t *testing.T) {
	dir := mcpWorkspace(t, "")
	read := runAW(t, dir, nil, "-o", "json", "inspect", "read", "README.md").Stdout
	quoted, _ := json.Marshal(string(read))
	in := bytes.Join([][]byte{read, quoted, []byte(`{"not":"an envelope"}`), []byte("  \n"), []byte("[1,2]")}, []byte("\n"))
	r := runFilter(t, dir, in, "envelope", "compact")
	lines := strings.Split(strings.TrimSpace(string(r)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d output lines, want 4:\n%s", len(lines), r)
	}
	if lines[0] != lines[1] {
		t.Errorf("an envelope in a JSON string compacts differently:\n%s\n%s", lines[0], lines[1])
	}
	if field(t, []byte(lines[0]), ".data.sha256") == "" || strings.Contains(lines[0], `"content"`) {
		t.Errorf("read compacted: %s", lines[0])
	}
	if lines[2] != `{"not":"an envelope"}` || lines[3] != "[1,2]" {
		t.Errorf("non-envelopes changed: %q %q", lines[2], lines[3])
	}
	bad := runAW(t, dir, []byte(string(read)+"\n{oops"), "envelope", "compact")
	if bad.Code != 2 || bad.field(t, ".error.code") != "INVALID_INPUT" || bytes.Count(bad.Stdout, []byte("\n")) != 1 {
		t.Errorf("bad input: exit %d\n%s", bad.Code, bad.Stdout)
	}
	if r := runAW(t, dir, nil, "envelope", "compact", "--budget", "-1"); r.Code != 2 {
		t.Errorf("--budget -1: exit %d", r.Code)
	}
}

func execAW(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(awBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"-userconfig", "AW_ROOT=", "AW_APPROVER_TOKEN=")
	return cmd
}

func runFilter(t testing.TB, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := execAW(dir, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("aw %v: %v", args, err)
	}
	return out
}
