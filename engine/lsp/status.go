package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// ServerStatus is one configured server: whether it can answer for the
// workspace and why not, and its process when the broker holds it.
type ServerStatus struct {
	candidate
	Running bool   `json:"running"`
	Pid     int    `json:"pid,omitempty"`
	State   string `json:"state,omitempty"`
	Detail  string `json:"detail,omitempty"` // a failed start's stderr tail
}

// StatusData is lsp status.
type StatusData struct {
	Servers []ServerStatus `json:"servers"`
	Broker  bool           `json:"brokerRunning"`
}

// Status is lsp status: every configured server, whether it can answer
// (root marker and binary), and which run now. It never starts anything.
func Status(ctx context.Context, ws *workspace.Workspace, _ *StatusRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var st broker.Status
	running, _ := broker.Query(ctx, ws, "broker.status", nil, &st)
	d := StatusData{Broker: running, Servers: []ServerStatus{}}
	var ready []string
	for _, s := range servers(&ws.Settings) {
		ss := ServerStatus{candidate: detect(ws, s, ws.Root)}
		for _, h := range st.Held {
			if h.Service == "lsp" && h.Kind == s.Name {
				ss.Running, ss.Pid, ss.State, ss.Detail = h.State != "failed", h.Pid, h.State, h.Detail
				if ss.Root == "" || ss.Root == "." {
					ss.Root = rel(ws.Root, h.Key)
				}
				if h.State == "failed" {
					ss.Available = false
					ss.Reason = "failed to start: " + h.Detail
				}
			}
		}
		if ss.Available {
			ready = append(ready, s.Name)
		}
		d.Servers = append(d.Servers, ss)
	}
	sort.SliceStable(d.Servers, func(i, j int) bool { return d.Servers[i].Available && !d.Servers[j].Available })
	summary := "no language server can answer for this workspace (see data.servers for why)"
	if len(ready) > 0 {
		summary = "language servers available: " + strings.Join(ready, ", ")
	}
	env := envelope.New("", summary, d)
	for _, s := range d.Servers {
		if s.Available {
			env.Fact("%s: available for %s (running: %v)", s.Name, s.Root, s.Running)
		}
	}
	return env, nil
}

// Reload is lsp reload: ends the workspace's language servers; the next
// query starts them again.
func Reload(ctx context.Context, ws *workspace.Workspace, _ *ReloadRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var res struct {
		Stopped []string `json:"stopped"`
	}
	running, err := broker.Query(ctx, ws, "lsp.reload", target{}, &res)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if res.Stopped == nil {
		res.Stopped = []string{}
	}
	summary := "no language server was running: the next query starts one"
	if running && len(res.Stopped) > 0 {
		summary = fmt.Sprintf("stopped %s: the next query starts them again", strings.Join(res.Stopped, ", "))
	}
	return envelope.New("", summary, res), nil
}

// DiagnosticEntry is one diagnostic as aw reports it.
type DiagnosticEntry struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Code     string `json:"code,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
}

// DiagnosticsData is lsp diagnostics.
type DiagnosticsData struct {
	Server      string            `json:"server"`
	Diagnostics []DiagnosticEntry `json:"diagnostics"`
	Settled     bool              `json:"settled"` // the set stopped changing before the wait ran out
	Mode        string            `json:"mode"`    // pulled, pushed, or checker ('*')
	Checker     []string          `json:"checker,omitempty"`
	Unparsed    []string          `json:"unparsed,omitempty"` // checker output that named no position
	Truncated   bool              `json:"truncated"`
}

const maxDiagnostics = 200

// Diagnostics is lsp diagnostics FILE (the server's, once settled), or
// '*': the project checker of the workspace's server (go vet, pyright,
// tsc), run by the broker in the server's sandbox.
func Diagnostics(ctx context.Context, ws *workspace.Workspace, r *DiagnosticsRequest) (envelope.Envelope, error) {
	if r.File == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "diagnostics takes a file, or '*' for the whole workspace")
	}
	var c candidate
	var files []string
	if r.File == "*" {
		var err error
		if c, err = workspaceServer(ws); err != nil {
			return envelope.Envelope{}, err
		}
	} else {
		p, err := ws.Jail.Resolve(r.File, workspace.Read)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if c, err = serverFor(ws, p); err != nil {
			return envelope.Envelope{}, err
		}
		files = []string{p.Abs}
	}
	var d DiagnosticsData
	if files == nil {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		var res checkResult
		if err := broker.Call(cctx, ws, "lsp.check", checkCall{target: c.target()}, &res); err != nil {
			return envelope.Envelope{}, err
		}
		d = DiagnosticsData{Server: c.Name, Settled: true, Mode: "checker", Checker: res.Command, Diagnostics: entries(ws, res.Files), Unparsed: res.Unparsed}
	} else {
		res, err := fileDiagnostics(ctx, ws, c, files, 300, ws.Settings.LSP.DiagnosticsWaitMs)
		if err != nil {
			return envelope.Envelope{}, err
		}
		d = DiagnosticsData{Server: c.Name, Settled: res.Settled, Mode: res.Mode, Diagnostics: entries(ws, res.Files)}
	}
	if len(d.Diagnostics) > maxDiagnostics {
		d.Diagnostics, d.Truncated = d.Diagnostics[:maxDiagnostics], true
	}
	errs := 0
	for _, e := range d.Diagnostics {
		if e.Severity == "error" {
			errs++
		}
	}
	env := envelope.New("", fmt.Sprintf("%d diagnostics (%d errors) from %s", len(d.Diagnostics), errs, c.Name), d)
	for i, e := range d.Diagnostics {
		if i == 5 {
			break
		}
		env.Fact("%s:%d: %s: %s", e.Path, e.Line, e.Severity, clip(e.Message, 160))
	}
	return env, nil
}

var severities = []string{"", "error", "warning", "information", "hint"}

// entries flattens per-file diagnostics, sorted by path and line.
func entries(ws *workspace.Workspace, files map[string][]Diagnostic) []DiagnosticEntry {
	out := []DiagnosticEntry{}
	for abs, list := range files {
		path := abs
		if within(ws.Root, abs) {
			if ws.Jail.Denied(ws.Rel(abs)) {
				continue
			}
			path = ws.Rel(abs)
		}
		for _, dg := range list {
			sev := "error"
			if dg.Severity > 0 && dg.Severity < len(severities) {
				sev = severities[dg.Severity]
			}
			out = append(out, DiagnosticEntry{Path: path, Line: dg.Range.Start.Line + 1, Column: dg.Range.Start.Character + 1,
				Severity: sev, Code: strings.Trim(string(dg.Code), `"`), Source: dg.Source, Message: dg.Message})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out
}
