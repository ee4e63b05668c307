package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The host.workspace tests run `aw serve` (the built binary) on a free
// loopback port with a temporary store and talk real HTTP to it. Every
// scenario runs on SQLite and on PostgreSQL (scripts/test-deps starts one;
// AW_TEST_POSTGRES names another).

const defaultTestPostgres = "postgres://postgres@/postgres?host=/var/run/aw-test-pg&port=54329"

// hostBackend is where a test server keeps its store: "" for SQLite in a
// temporary directory, else a fresh PostgreSQL database's URL.
type hostBackend struct {
	name string
	db   func(t testing.TB) string
}

func hostBackends() []hostBackend {
	return []hostBackend{
		{"sqlite", func(t testing.TB) string { return "" }},
		{"postgres", freshPostgres},
	}
}

// freshPostgres creates a database for one test and drops it afterwards.
// Without a server the test is skipped, saying what to run; under CI=true
// it fails.
func freshPostgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv("AW_TEST_POSTGRES")
	if base == "" {
		base = defaultTestPostgres
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		msg := fmt.Sprintf("no PostgreSQL at %s (%v): run scripts/test-deps (it installs postgresql-15 and starts it), or set AW_TEST_POSTGRES", base, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPING the PostgreSQL half: " + msg)
	}
	defer conn.Close(ctx)
	var b [6]byte
	rand.Read(b[:])
	name := "aw_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, base); err == nil {
			c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	u, _ := url.Parse(base)
	u.Path = "/" + name
	return u.String()
}

// hostStore is one store (a data directory or a database) and the human's
// approver credentials for its token verbs.
type hostStore struct {
	data, db string
	cfg      string // XDG_CONFIG_HOME holding the approver token
	ws       string // a workspace directory to run aw in
}

func newHostStore(t testing.TB, b hostBackend) *hostStore {
	t.Helper()
	s := &hostStore{db: b.db(t), cfg: t.TempDir(), ws: t.TempDir()}
	if s.db == "" {
		s.data = t.TempDir()
	}
	os.MkdirAll(filepath.Join(s.cfg, "aw"), 0o700)
	if err := os.WriteFile(filepath.Join(s.cfg, "aw", "approver.token"), []byte("approver-secret-for-tests\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *hostStore) where() []string {
	if s.db != "" {
		return []string{"--db", s.db}
	}
	return []string{"--data", s.data}
}

func (s *hostStore) humanEnv() []string {
	return []string{"XDG_CONFIG_HOME=" + s.cfg, "AW_APPROVER_TOKEN=approver-secret-for-tests"}
}

// token mints a token for {tenant, workspace} through aw serve token add.
func (s *hostStore) token(t testing.TB, tenant, workspace string) string {
	t.Helper()
	r := runAWEnv(t, s.ws, nil, s.humanEnv(), append([]string{"serve", "token", "add", "--tenant", tenant, "--workspace", workspace, "--name", tenant + "-" + workspace}, s.where()...)...)
	if r.Code != 0 {
		t.Fatalf("token add: %s", r.Stdout)
	}
	return r.field(t, ".data.token").(string)
}

// hostServer is one running aw serve.
type hostServer struct {
	url string
	cmd *exec.Cmd
}

// serve starts aw serve on the store and waits for its ready envelope.
func (s *hostStore) serve(t testing.TB, extra ...string) *hostServer {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0"}, s.where()...)
	args = append(args, extra...)
	cmd := exec.Command(awBin, args...)
	cmd.Dir = s.ws
	cmd.Env = append(os.Environ(), "AW_TEST_SECRET=sekrit-value-0123456789")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &hostServer{cmd: cmd}
	t.Cleanup(func() { h.stop() })
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err != nil {
		t.Fatalf("aw serve printed no envelope: %v; stderr: %s", err, stderr.String())
	}
	var env struct {
		OK   bool `json:"ok"`
		Data struct {
			URL string `json:"url"`
		} `json:"data"`
	}
	if err := json.Unmarshal(line, &env); err != nil || !env.OK || env.Data.URL == "" {
		t.Fatalf("aw serve did not start: %s %s", line, stderr.String())
	}
	h.url = env.Data.URL
	return h
}

func (h *hostServer) stop() {
	if h.cmd.ProcessState == nil {
		h.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { h.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			h.cmd.Process.Kill()
			<-done
		}
	}
}

func (h *hostServer) kill() {
	h.cmd.Process.Kill()
	h.cmd.Wait()
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

var hostHTTP = &http.Client{Timeout: 30 * time.Second}

// call sends one request; body is sent as is.
func (h *hostServer) call(t testing.TB, method, path, token string, header map[string]string, body string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := hostHTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, raw: raw}
	json.Unmarshal(raw, &r.body)
	return r
}

func jsonBody(content string) string {
	raw, _ := json.Marshal(map[string]string{"content": content})
	return string(raw)
}

func (h *hostServer) put(t testing.TB, token, path, content, ifMatch string) reply {
	t.Helper()
	hdr := map[string]string{"Content-Type": "application/json"}
	if ifMatch != "" {
		hdr["If-Match"] = ifMatch
	}
	return h.call(t, "PUT", "/v1/host/workspace/files/"+path, token, hdr, jsonBody(content))
}

func (h *hostServer) get(t testing.TB, token, path string) reply {
	t.Helper()
	return h.call(t, "GET", "/v1/host/workspace/files/"+path, token, nil, "")
}

// want checks the status and, for an error, the code; the body is
// checked against the OpenAPI document's schema for it.
func (r reply) want(t testing.TB, status int, schema string) reply {
	t.Helper()
	if r.status != status {
		t.Fatalf("HTTP %d, want %d: %s", r.status, status, r.raw)
	}
	if schema != "" {
		checkAPISchema(t, schema, r.raw)
	}
	return r
}

func (r reply) code(t testing.TB, status int, code string) reply {
	t.Helper()
	r.want(t, status, "Error")
	if got := r.body["code"]; got != code {
		t.Fatalf("code %v, want %s: %s", got, code, r.raw)
	}
	if msg, _ := r.body["message"].(string); msg == "" {
		t.Fatalf("an error without a message: %s", r.raw)
	}
	return r
}

func (r reply) str(key string) string { s, _ := r.body[key].(string); return s }

func (r reply) num(key string) int64 { f, _ := r.body[key].(float64); return int64(f) }

func (r reply) detail(key string) any {
	d, _ := r.body["details"].(map[string]any)
	return d[key]
}

// The OpenAPI document, compiled once; responses are checked against its
// component schemas.
var (
	apiOnce     sync.Once
	apiCompiler *jsonschema.Compiler
	apiSchemas  = map[string]*jsonschema.Schema{}
	apiMu       sync.Mutex
)

func checkAPISchema(t testing.TB, name string, raw []byte) {
	t.Helper()
	apiOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustRead("../../engine/host/openapi.json")))
		if err != nil {
			panic(err)
		}
		apiCompiler = jsonschema.NewCompiler()
		apiCompiler.DefaultDraft(jsonschema.Draft2020)
		if err := apiCompiler.AddResource("mem://openapi.json", doc); err != nil {
			panic(err)
		}
	})
	apiMu.Lock()
	sch, ok := apiSchemas[name]
	if !ok {
		var err error
		sch, err = apiCompiler.Compile("mem://openapi.json#/components/schemas/" + name)
		if err != nil {
			apiMu.Unlock()
			t.Fatalf("schema %s: %v", name, err)
		}
		apiSchemas[name] = sch
	}
	apiMu.Unlock()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not JSON: %v: %s", err, raw)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("the answer does not match the OpenAPI schema %s: %v\n%s", name, err, raw)
	}
}

func mustRead(p string) []byte {
	raw, err := os.ReadFile(p)
	if err != nil {
		panic(err)
	}
	return raw
}

// sse is an open event stream.
type sse struct {
	events chan map[string]any
	types  chan string
	cancel context.CancelFunc
}

func (h *hostServer) stream(t testing.TB, token, lastEventID string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", h.url+"/v1/host/workspace/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		cancel()
		t.Fatalf("events: HTTP %d", resp.StatusCode)
	}
	s := &sse{events: make(chan map[string]any, 1000), types: make(chan string, 1000), cancel: cancel}
	t.Cleanup(cancel)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var typ, id string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				typ = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "id: "):
				id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				var m map[string]any
				json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m)
				m["_sse_id"] = id
				s.types <- typ
				if typ == "workspace.updated" {
					s.events <- m
				}
			}
		}
	}()
	return s
}

func (s *sse) next(t testing.TB, within time.Duration) map[string]any {
	t.Helper()
	select {
	case e := <-s.events:
		raw, _ := json.Marshal(withoutKey(e, "_sse_id"))
		checkAPISchema(t, "WorkspaceUpdated", raw)
		return e
	case <-time.After(within):
		t.Fatalf("no workspace.updated within %s", within)
		return nil
	}
}

func (s *sse) none(t testing.TB, within time.Duration) {
	t.Helper()
	select {
	case e := <-s.events:
		t.Fatalf("an event arrived that must not: %v", e)
	case <-time.After(within):
	}
}

func withoutKey(m map[string]any, k string) map[string]any {
	out := map[string]any{}
	for key, v := range m {
		if key != k {
			out[key] = v
		}
	}
	return out
}

// scenario servers: small limits so that the limits are reachable.
var scenarioFlags = []string{"--max-file-bytes", "4096", "--max-files", "5", "--max-versions", "3", "--secret-env", "AW_TEST_SECRET"}

// TestHostScenarios runs every conformance scenario against one server per
// backend; each scenario has principals of its own.
func TestHostScenarios(t *testing.T) {
	for _, b := range hostBackends() {
		t.Run(b.name, func(t *testing.T) {
			st := newHostStore(t, b)
			h := st.serve(t, scenarioFlags...)
			for _, sc := range hostScenarios {
				t.Run(sc.name, func(t *testing.T) { sc.run(t, st, h, sc.name) })
			}
		})
	}
}

var hostScenarios = []struct {
	name string
	run  func(t *testing.T, st *hostStore, h *hostServer, tenant string)
}{
	{"capability-shape", func(t *testing.T, st *hostStore, h *hostServer, _ string) {
		r := h.call(t, "GET", "/v1/host/capabilities", "", nil, "").want(t, 200, "Capabilities")
		ws := r.body["capabilities"].(map[string]any)["workspace"].(map[string]any)
		if ws["supported"] != true || ws["versioned"] != true || ws["maxFileBytes"] != 4096.0 || ws["maxFiles"] != 5.0 || ws["maxVersions"] != 3.0 {
			t.Fatalf("capabilities: %s", r.raw)
		}
		h.call(t, "POST", "/v1/host/capabilities", "", nil, "").code(t, 405, "method_not_allowed")
	}},
	{"crud-roundtrip", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		ev := h.stream(t, tok, "")
		r := h.put(t, tok, "DIRECTIVES.md", "# Directives\nBe kind.\n", "").want(t, 200, "WorkspaceFile")
		if r.num("version") != 1 || r.str("etag") != `"v1"` || r.header.Get("ETag") != `"v1"` || r.str("contentType") != "text/markdown" {
			t.Fatalf("put: %s", r.raw)
		}
		e := ev.next(t, 10*time.Second)
		if e["path"] != "DIRECTIVES.md" || e["version"] != 1.0 || e["by"] != tenant+"-w" || e["deleted"] != false {
			t.Fatalf("event: %v", e)
		}
		if _, has := e["content"]; has {
			t.Fatalf("the event carries content: %v", e)
		}
		g := h.get(t, tok, "DIRECTIVES.md").want(t, 200, "WorkspaceFile")
		if g.str("content") != "# Directives\nBe kind.\n" || g.num("version") != 1 {
			t.Fatalf("get: %s", g.raw)
		}
		l := h.call(t, "GET", "/v1/host/workspace/files", tok, nil, "").want(t, 200, "FileList")
		if files := l.body["files"].([]any); len(files) != 1 || files[0].(map[string]any)["bytes"] != 22.0 {
			t.Fatalf("list: %s", l.raw)
		}
		if strings.Contains(string(l.raw), "Be kind") {
			t.Fatalf("the listing carries bodies: %s", l.raw)
		}
		d := h.call(t, "DELETE", "/v1/host/workspace/files/DIRECTIVES.md", tok, nil, "").want(t, 200, "Deleted")
		if d.num("version") != 2 {
			t.Fatalf("delete: %s", d.raw)
		}
		if e := ev.next(t, 10*time.Second); e["deleted"] != true || e["version"] != 2.0 {
			t.Fatalf("delete event: %v", e)
		}
		h.get(t, tok, "DIRECTIVES.md").code(t, 404, "not_found")
		if l := h.call(t, "GET", "/v1/host/workspace/files", tok, nil, ""); len(l.body["files"].([]any)) != 0 {
			t.Fatalf("list after delete: %s", l.raw)
		}
	}},
	{"etag-conflict", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		for i := 1; i <= 3; i++ {
			h.put(t, tok, "DIRECTIVES.md", fmt.Sprintf("v%d", i), "").want(t, 200, "WorkspaceFile")
		}
		// The RFC's positive example: If-Match "v3" when current is v3.
		r := h.put(t, tok, "DIRECTIVES.md", "four", `"v3"`).want(t, 200, "WorkspaceFile")
		if r.num("version") != 4 {
			t.Fatalf("%s", r.raw)
		}
		h.put(t, tok, "DIRECTIVES.md", "five", `"v4"`).want(t, 200, "")
		// The negative example: If-Match "v3" when current is v5.
		c := h.put(t, tok, "DIRECTIVES.md", "lost", `"v3"`).code(t, 409, "workspace_conflict")
		if c.detail("currentVersion") != 5.0 {
			t.Fatalf("%s", c.raw)
		}
		if g := h.get(t, tok, "DIRECTIVES.md"); g.str("content") != "five" {
			t.Fatalf("a refused write changed the file: %s", g.raw)
		}
		h.put(t, tok, "absent.md", "x", `"v1"`).code(t, 409, "workspace_conflict")
		h.put(t, tok, "absent.md", "x", `*`).code(t, 409, "workspace_conflict")
		h.call(t, "PUT", "/v1/host/workspace/files/DIRECTIVES.md", tok, map[string]string{"If-None-Match": "*"}, jsonBody("x")).code(t, 409, "workspace_conflict")
		h.put(t, tok, "DIRECTIVES.md", "x", `garbage`).code(t, 400, "invalid_request")
		h.call(t, "DELETE", "/v1/host/workspace/files/DIRECTIVES.md", tok, map[string]string{"If-Match": `"v2"`}, "").code(t, 409, "workspace_conflict")
		h.get(t, tok, "absent.md").code(t, 404, "not_found")
	}},
	{"cross-tenant-isolation", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		owner := st.token(t, tenant, "w")
		otherTenant := st.token(t, tenant+"-other", "w")
		otherWS := st.token(t, tenant, "w2")
		h.put(t, owner, "SOUL.md", "owner's secret soul", "").want(t, 200, "")
		run := h.call(t, "POST", "/v1/host/runs", owner, nil, "").want(t, 201, "Run")
		snap := run.str("snapshotId")
		for _, tok := range []string{otherTenant, otherWS} {
			ev := h.stream(t, tok, "0")
			h.get(t, tok, "SOUL.md").code(t, 404, "not_found")
			h.call(t, "GET", "/v1/host/workspace/files/SOUL.md?version=1", tok, nil, "").code(t, 404, "not_found")
			h.call(t, "GET", "/v1/host/workspace/files/SOUL.md?snapshot="+snap, tok, nil, "").code(t, 404, "snapshot_not_found")
			h.call(t, "GET", "/v1/host/workspace/files?snapshot="+snap, tok, nil, "").code(t, 404, "snapshot_not_found")
			h.call(t, "GET", "/v1/host/workspace/history/SOUL.md", tok, nil, "").code(t, 404, "not_found")
			h.call(t, "POST", "/v1/host/runs", tok, nil, `{"parentRunId":"`+run.str("runId")+`"}`).code(t, 404, "not_found")
			for _, prefix := range []string{"", "S", "SOUL.md"} {
				l := h.call(t, "GET", "/v1/host/workspace/files?prefix="+prefix, tok, nil, "").want(t, 200, "FileList")
				if len(l.body["files"].([]any)) != 0 {
					t.Fatalf("another principal lists the owner's files: %s", l.raw)
				}
			}
			h.call(t, "DELETE", "/v1/host/workspace/files/SOUL.md", tok, nil, "").code(t, 404, "not_found")
			// Its own file of the same name is its own.
			h.put(t, tok, "SOUL.md", "mine", "").want(t, 200, "")
			if e := ev.next(t, 10*time.Second); e["version"] != 1.0 {
				t.Fatalf("own event: %v", e)
			}
			ev.none(t, 300*time.Millisecond)
		}
		if g := h.get(t, owner, "SOUL.md"); g.str("content") != "owner's secret soul" || g.num("version") != 1 {
			t.Fatalf("another principal changed the owner's file: %s", g.raw)
		}
	}},
	{"run-snapshot", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		h.put(t, tok, "MEMORY-INDEX.json", `{"v":1}`, "").want(t, 200, "")
		h.put(t, tok, "gone.md", "here at the start", "").want(t, 200, "")
		run := h.call(t, "POST", "/v1/host/runs", tok, nil, "").want(t, 201, "Run")
		snap := run.str("snapshotId")
		// Mid-run writes: a change, a delete, a new file.
		h.put(t, tok, "MEMORY-INDEX.json", `{"v":2}`, "").want(t, 200, "")
		h.call(t, "DELETE", "/v1/host/workspace/files/gone.md", tok, nil, "").want(t, 200, "")
		h.put(t, tok, "new.md", "born mid-run", "").want(t, 200, "")
		g := h.call(t, "GET", "/v1/host/workspace/files/MEMORY-INDEX.json?snapshot="+snap, tok, nil, "").want(t, 200, "WorkspaceFile")
		if g.str("content") != `{"v":1}` || g.num("version") != 1 {
			t.Fatalf("the snapshot sees a mid-run write: %s", g.raw)
		}
		if g := h.call(t, "GET", "/v1/host/workspace/files/gone.md?snapshot="+snap, tok, nil, ""); g.str("content") != "here at the start" {
			t.Fatalf("the snapshot lost a file deleted mid-run: %s", g.raw)
		}
		h.call(t, "GET", "/v1/host/workspace/files/new.md?snapshot="+snap, tok, nil, "").code(t, 404, "not_found")
		l := h.call(t, "GET", "/v1/host/workspace/files?snapshot="+snap, tok, nil, "").want(t, 200, "FileList")
		if paths := metaPaths(l); paths != "MEMORY-INDEX.json@1 gone.md@1" {
			t.Fatalf("snapshot listing: %s", paths)
		}
		// A sub-agent inherits the parent's snapshot.
		sub := h.call(t, "POST", "/v1/host/runs", tok, nil, `{"parentRunId":"`+run.str("runId")+`"}`).want(t, 201, "Run")
		if sub.str("snapshotId") != snap {
			t.Fatalf("sub-agent snapshot %s, want %s", sub.str("snapshotId"), snap)
		}
		// The next run sees the writes.
		next := h.call(t, "POST", "/v1/host/runs", tok, nil, "").want(t, 201, "Run")
		g2 := h.call(t, "GET", "/v1/host/workspace/files/MEMORY-INDEX.json?snapshot="+next.str("snapshotId"), tok, nil, "")
		if g2.str("content") != `{"v":2}` {
			t.Fatalf("the next run does not see the write: %s", g2.raw)
		}
		if paths := metaPaths(h.call(t, "GET", "/v1/host/workspace/files?snapshot="+next.str("snapshotId"), tok, nil, "")); paths != "MEMORY-INDEX.json@2 new.md@1" {
			t.Fatalf("next snapshot listing: %s", paths)
		}
		h.call(t, "GET", "/v1/host/workspace/files/x.md?snapshot=snapshot_nope", tok, nil, "").code(t, 404, "snapshot_not_found")
		h.call(t, "GET", "/v1/host/workspace/files/x.md?snapshot="+snap+"&version=1", tok, nil, "").code(t, 400, "invalid_request")
		h.call(t, "POST", "/v1/host/runs", tok, nil, `{"parent":"x"}`).code(t, 400, "invalid_request")
	}},
	{"too-large", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		r := h.put(t, tok, "big.md", strings.Repeat("x", 4097), "").code(t, 413, "workspace_too_large")
		if r.detail("maxFileBytes") != 4096.0 {
			t.Fatalf("%s", r.raw)
		}
		h.put(t, tok, "big.md", strings.Repeat("x", 4096), "").want(t, 200, "")
		h.put(t, tok, "big.md", strings.Repeat("y", 5000), "").code(t, 413, "workspace_too_large")
		// A body past what any allowed file can be is cut off unread.
		h.put(t, tok, "big.md", strings.Repeat("z", 200000), "").code(t, 413, "workspace_too_large")
		if g := h.get(t, tok, "big.md"); g.num("version") != 1 || !strings.HasPrefix(g.str("content"), "xxx") {
			t.Fatalf("a refused write was stored: %.200s", g.raw)
		}
	}},
	{"max-files", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		for i := 0; i < 5; i++ {
			h.put(t, tok, fmt.Sprintf("f%d.md", i), "x", "").want(t, 200, "")
		}
		r := h.put(t, tok, "f5.md", "x", "").code(t, 413, "workspace_too_large")
		if r.detail("maxFiles") != 5.0 {
			t.Fatalf("%s", r.raw)
		}
		h.put(t, tok, "f0.md", "replacing is not creating", "").want(t, 200, "")
		h.call(t, "DELETE", "/v1/host/workspace/files/f1.md", tok, nil, "").want(t, 200, "")
		h.put(t, tok, "f5.md", "x", "").want(t, 200, "")
		h.get(t, tok, "f1.md").code(t, 404, "not_found")
	}},
	{"versions-and-retention", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		h.put(t, tok, "log.md", "v1", "").want(t, 200, "")
		h.put(t, tok, "log.md", "v2", "").want(t, 200, "")
		run := h.call(t, "POST", "/v1/host/runs", tok, nil, "").want(t, 201, "Run") // reads v2
		for i := 3; i <= 8; i++ {
			if r := h.put(t, tok, "log.md", fmt.Sprintf("v%d", i), "").want(t, 200, ""); r.num("version") != int64(i) {
				t.Fatalf("version %d: %s", i, r.raw)
			}
		}
		// maxVersions 3: the head (8) and 5, 6, 7; and 2, which the run reads.
		for v := 5; v <= 8; v++ {
			g := h.call(t, "GET", fmt.Sprintf("/v1/host/workspace/files/log.md?version=%d", v), tok, nil, "").want(t, 200, "WorkspaceFile")
			if g.str("content") != fmt.Sprintf("v%d", v) {
				t.Fatalf("version %d: %s", v, g.raw)
			}
		}
		for _, v := range []int{1, 3, 4} {
			r := h.call(t, "GET", fmt.Sprintf("/v1/host/workspace/files/log.md?version=%d", v), tok, nil, "").code(t, 404, "not_found")
			if r.detail("currentVersion") != 8.0 {
				t.Fatalf("%s", r.raw)
			}
		}
		if g := h.call(t, "GET", "/v1/host/workspace/files/log.md?snapshot="+run.str("snapshotId"), tok, nil, ""); g.str("content") != "v2" {
			t.Fatalf("retention dropped what a run snapshot reads: %s", g.raw)
		}
		hist := h.call(t, "GET", "/v1/host/workspace/history/log.md", tok, nil, "").want(t, 200, "History")
		var got []string
		for _, v := range hist.body["versions"].([]any) {
			got = append(got, fmt.Sprint(v.(map[string]any)["version"]))
		}
		if strings.Join(got, ",") != "8,7,6,5,2" {
			t.Fatalf("history %v", got)
		}
		h.call(t, "GET", "/v1/host/workspace/files/log.md?version=0", tok, nil, "").code(t, 400, "invalid_request")
		h.call(t, "GET", "/v1/host/workspace/files/log.md?version=abc", tok, nil, "").code(t, 400, "invalid_request")
	}},
	{"tombstones", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		h.put(t, tok, "t.md", "alive", "").want(t, 200, "")
		h.call(t, "DELETE", "/v1/host/workspace/files/t.md", tok, map[string]string{"If-Match": `"v1"`}, "").want(t, 200, "Deleted")
		if r := h.get(t, tok, "t.md").code(t, 404, "not_found"); r.detail("deleted") != true {
			t.Fatalf("%s", r.raw)
		}
		h.call(t, "GET", "/v1/host/workspace/files/t.md?version=2", tok, nil, "").code(t, 404, "not_found")
		if g := h.call(t, "GET", "/v1/host/workspace/files/t.md?version=1", tok, nil, ""); g.str("content") != "alive" {
			t.Fatalf("%s", g.raw)
		}
		h.call(t, "DELETE", "/v1/host/workspace/files/t.md", tok, nil, "").code(t, 404, "not_found")
		h.put(t, tok, "t.md", "x", `"v2"`).code(t, 409, "workspace_conflict")
		if r := h.put(t, tok, "t.md", "again", "").want(t, 200, ""); r.num("version") != 3 {
			t.Fatalf("versions restart after a tombstone: %s", r.raw)
		}
		hist := h.call(t, "GET", "/v1/host/workspace/history/t.md", tok, nil, "").want(t, 200, "History")
		vs := hist.body["versions"].([]any)
		if len(vs) != 3 || vs[1].(map[string]any)["deleted"] != true {
			t.Fatalf("history: %s", hist.raw)
		}
	}},
	{"prefix-listing", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		for _, p := range []string{"b.md", "a/2.md", "ab.md", "a/1.md", "a_x.md"} {
			h.put(t, tok, p, "x", "").want(t, 200, "")
		}
		for prefix, want := range map[string]string{
			"":     "a/1.md@1 a/2.md@1 a_x.md@1 ab.md@1 b.md@1",
			"a/":   "a/1.md@1 a/2.md@1",
			"a":    "a/1.md@1 a/2.md@1 a_x.md@1 ab.md@1",
			"a_":   "a_x.md@1",
			"%25":  "",
			"a%25": "",
			"zz":   "",
		} {
			l := h.call(t, "GET", "/v1/host/workspace/files?prefix="+prefix, tok, nil, "").want(t, 200, "FileList")
			if got := metaPaths(l); got != want {
				t.Fatalf("prefix %q: %q, want %q", prefix, got, want)
			}
		}
		h.call(t, "GET", "/v1/host/workspace/files?prefix=a&bogus=1", tok, nil, "").code(t, 400, "invalid_request")
	}},
	{"sse-resume", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		for i := 1; i <= 3; i++ {
			h.put(t, tok, "r.md", fmt.Sprint(i), "").want(t, 200, "")
		}
		ev := h.stream(t, tok, "1")
		for _, want := range []float64{2, 3} {
			e := ev.next(t, 10*time.Second)
			if e["version"] != want || e["_sse_id"] != fmt.Sprint(want) || e["id"] != want {
				t.Fatalf("resumed event %v, want version %v", e, want)
			}
		}
		h.put(t, tok, "r.md", "4", "").want(t, 200, "")
		if e := ev.next(t, 10*time.Second); e["version"] != 4.0 {
			t.Fatalf("live event after resume: %v", e)
		}
		ev.none(t, 200*time.Millisecond)
		all := h.stream(t, tok, "0")
		for _, want := range []float64{1, 2, 3, 4} {
			if e := all.next(t, 10*time.Second); e["version"] != want {
				t.Fatalf("replay: %v", e)
			}
		}
		h.call(t, "GET", "/v1/host/workspace/events", tok, map[string]string{"Last-Event-ID": "x"}, "").code(t, 400, "invalid_request")
	}},
	{"redaction", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		content := "key=sekrit-value-0123456789 aws=AKIAABCDEFGHIJKLMNOP gh=ghp_0123456789abcdefghijklmnopqrstuvwxyz"
		r := h.put(t, tok, "env.md", content, "").want(t, 200, "WorkspaceFile")
		want := "key=[REDACTED:env.AW_TEST_SECRET] aws=[REDACTED:aws-access-key] gh=[REDACTED:github-token]"
		if r.str("content") != want || r.header.Get("Workspace-Redactions") != "aws-access-key, env.AW_TEST_SECRET, github-token" {
			t.Fatalf("put: %s %v", r.raw, r.header)
		}
		if g := h.get(t, tok, "env.md"); g.str("content") != want {
			t.Fatalf("stored: %s", g.raw)
		}
		hist := h.call(t, "GET", "/v1/host/workspace/history/env.md", tok, nil, "")
		if !strings.Contains(string(hist.raw), `"redactions":["aws-access-key","env.AW_TEST_SECRET","github-token"]`) {
			t.Fatalf("history: %s", hist.raw)
		}
		if st.data != "" {
			for _, f := range []string{"host.db", "host.db-wal"} {
				raw, _ := os.ReadFile(filepath.Join(st.data, f))
				if bytes.Contains(raw, []byte("sekrit-value-0123456789")) || bytes.Contains(raw, []byte("AKIAABCDEFGHIJKLMNOP")) {
					t.Fatalf("the plaintext secret reached %s", f)
				}
			}
		}
	}},
	{"bad-input", func(t *testing.T, st *hostStore, h *hostServer, tenant string) {
		tok := st.token(t, tenant, "w")
		files := "/v1/host/workspace/files/"
		for _, body := range []string{`{`, `[]`, `{"content": 3}`, `{"content":"x","extra":1}`, `{}`, `{"content":"x"} {"content":"y"}`, `{"content":"a\u0000b"}`, `{"content":"x","contentType":"a\nb"}`} {
			h.call(t, "PUT", files+"ok.md", tok, nil, body).code(t, 400, "invalid_request")
		}
		for _, p := range []string{"../x", "a/../b", "%2e%2e/x", "a/%2E%2E/b", "%2Fabs", "a//b", "a/", ".hidden", "-x", "a%00b", "a%5Cb", "a b", "caf%C3%A9", strings.Repeat("a", 257)} {
			h.call(t, "PUT", files+p, tok, nil, jsonBody("x")).code(t, 400, "invalid_path")
			h.call(t, "GET", files+p, tok, nil, "").code(t, 400, "invalid_path")
		}
		if l := h.call(t, "GET", "/v1/host/workspace/files", tok, nil, ""); len(l.body["files"].([]any)) != 0 {
			t.Fatalf("bad input was persisted: %s", l.raw)
		}
		revoked := st.token(t, tenant, "revoked")
		r := runAWEnv(t, st.ws, nil, st.humanEnv(), append([]string{"serve", "token", "revoke", tenant + "-revoked"}, st.where()...)...)
		if r.Code != 0 || r.field(t, ".data.changed") != true {
			t.Fatalf("revoke: %s", r.Stdout)
		}
		for _, auth := range []string{"", "Bearer", "Bearer awh_nope", "Basic " + tok, "bearer " + tok, "Bearer " + revoked, "Bearer " + tok + "x"} {
			r := h.call(t, "GET", "/v1/host/workspace/files", "", map[string]string{"Authorization": auth}, "").code(t, 401, "unauthorized")
			if r.header.Get("WWW-Authenticate") == "" {
				t.Fatalf("401 without WWW-Authenticate")
			}
			h.call(t, "PUT", files+"x.md", "", map[string]string{"Authorization": auth}, jsonBody("x")).code(t, 401, "unauthorized")
		}
		h.call(t, "PATCH", files+"ok.md", tok, nil, "").code(t, 405, "method_not_allowed")
		h.call(t, "GET", "/v1/host/nothing", tok, nil, "").code(t, 404, "not_found")
		h.call(t, "PUT", files+"ok.md?version=2", tok, nil, jsonBody("x")).code(t, 400, "invalid_request")
	}},
}

func metaPaths(r reply) string {
	var out []string
	files, _ := r.body["files"].([]any)
	for _, f := range files {
		m := f.(map[string]any)
		out = append(out, fmt.Sprintf("%s@%v", m["path"], m["version"]))
	}
	return strings.Join(out, " ")
}

func newRequest(method, u, body string) (*http.Request, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	return http.NewRequest(method, u, rd)
}
