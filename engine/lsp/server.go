package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// server is one running language server, held by the broker.
type server struct {
	cfg     workspace.LSPServer
	root    string // absolute
	key     string // the root, workspace-relative
	started time.Time

	mu       sync.Mutex
	lastUsed time.Time
	state    string // starting, ready, failed
	failure  error
	pid      int
	cmd      *exec.Cmd
	conn     *jsonrpc2.Conn
	stderr   *proc.Tail
	pull     bool // the server answers textDocument/diagnostic
	docs     map[string]*document
	diags    map[string]published
	changed  chan struct{} // closed and replaced on every publish
	ready    chan struct{}
	exited   chan struct{}
	sandbox  sandbox.Report
}

type document struct {
	version int
	sum     [32]byte
}

// published is the last diagnostics a server pushed for a document.
type published struct {
	items   []Diagnostic
	at      time.Time
	version *int // the document version they are for, when the server says
}

// startServer starts cfg for root inside the OS sandbox (the workspace
// read-only, its own state directory writable, the toolchain caches of
// commands) and initializes it. It returns at once; ready closes when the
// server answered initialize or failed.
func startServer(ws *workspace.Workspace, cfg workspace.LSPServer, root string) *server {
	s := &server{cfg: cfg, root: root, key: rel(ws.Root, root), started: time.Now(), lastUsed: time.Now(), state: "starting",
		docs: map[string]*document{}, diags: map[string]published{}, changed: make(chan struct{}),
		ready: make(chan struct{}), exited: make(chan struct{}), stderr: &proc.Tail{Max: 4000}}
	if err := s.launch(ws); err != nil {
		s.fail(err)
		close(s.exited)
		return s
	}
	go s.initialize()
	return s
}

func (s *server) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == "failed" {
		return
	}
	s.state, s.failure = "failed", err
	select {
	case <-s.ready:
	default:
		close(s.ready)
	}
}

func (s *server) launch(ws *workspace.Workspace) error {
	wrapped, env, rep, err := confine(ws, s.cfg.Name, s.cfg.Command, s.cfg.Args, s.root)
	if err != nil {
		return err
	}
	s.sandbox = rep
	cmd := exec.Command(wrapped[0], wrapped[1:]...)
	cmd.Dir = s.root
	cmd.Env = env
	cmd.Stderr = s.stderr
	serverAttr(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start %s: %v", s.cfg.Command, err)
	}
	s.cmd, s.pid = cmd, cmd.Process.Pid
	go func() {
		cmd.Wait()
		s.fail(fmt.Errorf("%s exited: %s", s.cfg.Name, s.stderr.String()))
		close(s.exited)
	}()
	s.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(pipe{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(s.handle))
	return nil
}

// confine builds the sandboxed argv and environment of a process the
// broker starts for the server name (the server itself, or its project
// checker): the workspace read-only, the server's state directory and the
// toolchain caches writable, no network.
func confine(ws *workspace.Workspace, name, command string, args []string, cwd string) ([]string, []string, sandbox.Report, error) {
	bin, err := exec.LookPath(command)
	if err != nil {
		return nil, nil, sandbox.Report{}, envelope.Errorf(envelope.NotFound, "%s needs %s, which is not on PATH: install it, or set lsp.servers", name, command)
	}
	state := filepath.Join(ws.StatePath("lsp"), name)
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, nil, sandbox.Report{}, err
	}
	env := serverEnv(state)
	argv := append([]string{bin}, args...)
	mode := sandbox.Mode(ws.Settings.Commands.Sandbox)
	var p *sandbox.Policy
	if mode != sandbox.Off {
		real, err := filepath.EvalSymlinks(bin)
		if err != nil {
			real = bin
		}
		readable := []string{filepath.Dir(bin), filepath.Dir(real)}
		if modules := nodeModulesOf(real); modules != "" {
			readable = append(readable, modules)
		}
		p, err = sandbox.ForProcess(ws, sandbox.Process{Workspace: sandbox.ReadOnly, Writable: []string{state},
			Readable: readable, Cwd: cwd, Env: env})
		if err != nil {
			return nil, nil, sandbox.Report{}, sandbox.Refusal(err, envelope.ToolDisabled, "the language server")
		}
		p.Caches = sandbox.Caches(p.State, p.Home, func(k string) string { return lookupEnv(env, k) })
		// gopls's own file cache, shared like the toolchain caches: a cold
		// one costs many seconds on every new workspace.
		shared := filepath.Join(filepath.Dir(p.State), "cache", "gopls")
		if os.MkdirAll(shared, 0o700) == nil {
			if real, err := filepath.EvalSymlinks(shared); err == nil {
				p.Writable = append(p.Writable, real)
				env = append(env, "GOPLSCACHE="+real)
			}
		}
	}
	wrapped, rep, err := sandbox.Wrap(p, mode, argv)
	if err != nil {
		return nil, nil, sandbox.Report{}, sandbox.Refusal(err, envelope.ToolDisabled, "the language server")
	}
	return wrapped, env, rep, nil
}

// nodeModulesOf is the node_modules directory a script server lives in
// (npm links bin/x to lib/node_modules/pkg/...): readable in the sandbox.
func nodeModulesOf(real string) string {
	if i := strings.LastIndex(real, string(filepath.Separator)+"node_modules"+string(filepath.Separator)); i >= 0 {
		return real[:i+len("/node_modules")]
	}
	return ""
}

// serverEnv is a server's whole environment: PATH and locale, a home and
// temporary directory of its own, toolchains pinned to what is installed
// and never the network (GOPROXY off, GOTOOLCHAIN local, telemetry off).
func serverEnv(state string) []string {
	env := []string{"HOME=" + state, "TMPDIR=" + filepath.Join(state, "tmp"), "GOTOOLCHAIN=local", "GOPROXY=off"}
	os.MkdirAll(filepath.Join(state, "tmp"), 0o700)
	// Go's telemetry off for the server's home: gopls would otherwise keep
	// a second process of its own (over 100 MB) uploading nothing.
	mode := filepath.Join(state, ".config", "go", "telemetry", "mode")
	if os.MkdirAll(filepath.Dir(mode), 0o700) == nil {
		os.WriteFile(mode, []byte("off\n"), 0o600)
	}
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "GOROOT", "GOPATH", "GOMODCACHE", "NODE_PATH"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func lookupEnv(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipe) Close() error {
	p.w.Close()
	return p.ReadCloser.Close()
}

// initialize runs the LSP handshake.
func (s *server) initialize() {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var res struct {
		Capabilities struct {
			DiagnosticProvider json.RawMessage `json:"diagnosticProvider"`
		} `json:"capabilities"`
	}
	uri := fileURI(s.root)
	if err := s.conn.Call(ctx, "initialize", initializeParams(uri, filepath.Base(s.root), s.cfg.InitializationOptions), &res); err != nil {
		s.fail(fmt.Errorf("%s did not initialize: %v; its stderr ends with: %s", s.cfg.Name, err, s.stderr.String()))
		return
	}
	if err := s.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		s.fail(err)
		return
	}
	s.mu.Lock()
	if len(res.Capabilities.DiagnosticProvider) > 0 && string(res.Capabilities.DiagnosticProvider) != "null" {
		s.pull = true
	}
	if s.state == "starting" {
		s.state = "ready"
		close(s.ready)
	}
	s.mu.Unlock()
}

// handle answers what the server asks of aw and records what it pushes.
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p PublishDiagnosticsParams
		if json.Unmarshal(params, &p) == nil {
			s.mu.Lock()
			s.diags[p.URI] = published{items: p.Diagnostics, at: time.Now(), version: p.Version}
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
		}
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		json.Unmarshal(params, &p)
		return make([]any, len(p.Items)), nil
	case "client/registerCapability":
		var p struct {
			Registrations []struct {
				Method string `json:"method"`
			} `json:"registrations"`
		}
		json.Unmarshal(params, &p)
		for _, r := range p.Registrations {
			if r.Method == "textDocument/diagnostic" {
				s.mu.Lock()
				s.pull = true
				s.mu.Unlock()
			}
		}
		return nil, nil
	case "client/unregisterCapability", "window/workDoneProgress/create", "window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/codeLens/refresh", "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh":
		return nil, nil
	case "workspace/workspaceFolders":
		return []any{map[string]any{"uri": fileURI(s.root), "name": filepath.Base(s.root)}}, nil
	case "workspace/applyEdit":
		// Edits reach the workspace only as aw transactions.
		return map[string]any{"applied": false, "failureReason": "aw applies edits only through its own transactions"}, nil
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "aw does not handle " + req.Method}
}

// wait blocks until the server is ready or failed, or ctx ends.
func (s *server) wait(ctx context.Context) error {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return envelope.Errorf(envelope.Timeout, "%s is still starting (loading the workspace); call again in a few seconds", s.cfg.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == "failed" {
		return envelope.Errorf(envelope.Internal, "%s failed to start: %v; `aw lsp status` shows why, `aw lsp reload` restarts it", s.cfg.Name, s.failure).With("server", s.cfg.Name)
	}
	s.lastUsed = time.Now()
	return nil
}

// sync tells the server what a file holds now: opened on first use,
// changed (whole text) when its content differs from what was sent,
// closed when it is gone. It reports whether the server's view changed.
func (s *server) sync(ctx context.Context, abs string) (bool, error) {
	uri := fileURI(abs)
	raw, err := os.ReadFile(abs)
	s.mu.Lock()
	d := s.docs[uri]
	s.mu.Unlock()
	if err != nil {
		if d != nil {
			s.mu.Lock()
			delete(s.docs, uri)
			s.mu.Unlock()
			return true, s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
		}
		return false, nil
	}
	sum := sha256.Sum256(raw)
	switch {
	case d == nil:
		s.mu.Lock()
		s.docs[uri] = &document{version: 1, sum: sum}
		s.mu.Unlock()
		return true, s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": TextDocumentItem{URI: uri, LanguageID: languageID(abs), Version: 1, Text: string(raw)}})
	case d.sum != sum:
		s.mu.Lock()
		d.version++
		d.sum = sum
		v := d.version
		s.mu.Unlock()
		if err := s.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []any{map[string]any{"text": string(raw)}},
		}); err != nil {
			return true, err
		}
		return true, s.conn.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
	}
	return false, nil
}

// filesChanged tells the server files changed on disk that it may not
// have open (a command wrote them).
func (s *server) filesChanged(ctx context.Context, abs []string) {
	var changes []any
	for _, a := range abs {
		typ := 2 // changed
		if _, err := os.Stat(a); err != nil {
			typ = 3 // deleted
		}
		changes = append(changes, map[string]any{"uri": fileURI(a), "type": typ})
	}
	if len(changes) > 0 {
		s.conn.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
	}
}

func (s *server) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var out json.RawMessage
	if err := s.conn.Call(ctx, method, params, &out); err != nil {
		if ctx.Err() != nil {
			return nil, envelope.Errorf(envelope.Timeout, "%s did not answer %s in time", s.cfg.Name, method)
		}
		if e, ok := err.(*jsonrpc2.Error); ok {
			return nil, envelope.Errorf(envelope.Internal, "%s refused %s: %s", s.cfg.Name, method, e.Message).With("server", s.cfg.Name)
		}
		return nil, envelope.Errorf(envelope.Internal, "%s failed during %s: %v; its stderr ends with: %s", s.cfg.Name, method, err, s.stderr.String())
	}
	return out, nil
}

// close shuts the server down politely, then ends its process group.
func (s *server) close() {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if s.conn.Call(ctx, "shutdown", nil, nil) == nil {
			s.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		s.conn.Close()
	}
	select {
	case <-s.exited:
	case <-time.After(2 * time.Second):
	}
	killGroup(s.pid)
	s.fail(fmt.Errorf("%s was stopped", s.cfg.Name))
}

func (s *server) held() broker.Held {
	s.mu.Lock()
	defer s.mu.Unlock()
	detail := ""
	if s.failure != nil {
		detail = clip(s.failure.Error(), 600)
	}
	return broker.Held{Kind: s.cfg.Name, Pid: s.pid, State: s.state, Detail: detail,
		AgeSeconds: int64(time.Since(s.started) / time.Second), IdleSecond: int64(time.Since(s.lastUsed) / time.Second)}
}

func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

func languageID(path string) string {
	switch languageOf(path) {
	case "go":
		return "go"
	case "py", "pyi":
		return "python"
	case "ts":
		return "typescript"
	case "tsx":
		return "typescriptreact"
	case "js", "mjs", "cjs":
		return "javascript"
	case "jsx":
		return "javascriptreact"
	case "c", "h":
		return "c"
	default:
		return "cpp"
	}
}
