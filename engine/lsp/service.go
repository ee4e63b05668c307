package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Service is the broker's language-server service: one server per
// (server name, root), started on the first call that needs it.
type Service struct {
	mu      sync.Mutex
	servers map[string]*server
}

// NewService returns the service the broker hosts under "lsp".
func NewService() *Service { return &Service{servers: map[string]*server{}} }

// target names the server a call is for.
type target struct {
	Server workspace.LSPServer `json:"server"`
	Root   string              `json:"root"` // absolute
}

func (t target) key() string { return t.Server.Name + "\x00" + t.Root }

// requestCall is "lsp.request": sync the files, then one LSP request.
type requestCall struct {
	target
	Sync   []string        `json:"sync"` // absolute paths to sync first
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// diagnosticsCall is "lsp.diagnostics": sync the files, then wait until the
// server's diagnostics have settled (pulled where the server offers it).
type diagnosticsCall struct {
	target
	Files    []string `json:"files"`
	SettleMs int      `json:"settleMs"`
	WaitMs   int      `json:"waitMs"`
}

// diagnosticsResult maps absolute paths to their diagnostics.
type diagnosticsResult struct {
	Files   map[string][]Diagnostic `json:"files"`
	Settled bool                    `json:"settled"`
	Mode    string                  `json:"mode"` // pulled, pushed
}

// touchedCall is "lsp.touched": files an edit or a command changed.
type touchedCall struct {
	Paths []string `json:"paths"`
}

// Call implements broker.Service.
func (v *Service) Call(ctx context.Context, ws *workspace.Workspace, method string, params json.RawMessage) (any, error) {
	switch method {
	case "request":
		var c requestCall
		if err := json.Unmarshal(params, &c); err != nil {
			return nil, err
		}
		s, err := v.ready(ctx, ws, c.target)
		if err != nil {
			return nil, err
		}
		for _, f := range c.Sync {
			if _, err := s.sync(ctx, f); err != nil {
				return nil, err
			}
		}
		return s.request(ctx, c.Method, c.Params)
	case "diagnostics":
		var c diagnosticsCall
		if err := json.Unmarshal(params, &c); err != nil {
			return nil, err
		}
		s, err := v.ready(ctx, ws, c.target)
		if err != nil {
			return nil, err
		}
		return s.diagnostics(ctx, c)
	case "touched":
		var c touchedCall
		if err := json.Unmarshal(params, &c); err != nil {
			return nil, err
		}
		return map[string]any{"changed": v.touched(ctx, c.Paths)}, nil
	case "check":
		var c checkCall
		if err := json.Unmarshal(params, &c); err != nil {
			return nil, err
		}
		return check(ctx, ws, c.target)
	case "reload":
		var t target
		json.Unmarshal(params, &t)
		return map[string]any{"stopped": v.reload(t)}, nil
	}
	return nil, envelope.Errorf(envelope.InvalidInput, "the lsp service has no method %q", method)
}

// ready returns the running server for t, starting it (or replacing a
// failed one) as needed, and waits for its handshake.
func (v *Service) ready(ctx context.Context, ws *workspace.Workspace, t target) (*server, error) {
	v.mu.Lock()
	s := v.servers[t.key()]
	if s != nil {
		select {
		case <-s.exited:
			s = nil // it died: start again
		default:
		}
	}
	if s == nil {
		s = startServer(ws, t.Server, t.Root)
		v.servers[t.key()] = s
	}
	v.mu.Unlock()
	return s, s.wait(ctx)
}

func (v *Service) reload(t target) []string {
	v.mu.Lock()
	var stop []*server
	for k, s := range v.servers {
		if t.Server.Name == "" || k == t.key() {
			stop = append(stop, s)
			delete(v.servers, k)
		}
	}
	v.mu.Unlock()
	var names []string
	for _, s := range stop {
		s.close()
		names = append(names, s.cfg.Name)
	}
	sort.Strings(names)
	return names
}

// touched syncs changed files with the running servers whose root holds
// them: every server hears of the change on disk, and open documents get
// their new text. With no paths (a command ran and nobody knows what it
// wrote), every open document is compared with the disk. It returns, per
// server, the documents whose text changed.
func (v *Service) touched(ctx context.Context, paths []string) map[string][]string {
	v.mu.Lock()
	list := make([]*server, 0, len(v.servers))
	for _, s := range v.servers {
		list = append(list, s)
	}
	v.mu.Unlock()
	changed := map[string][]string{}
	for _, s := range list {
		if s.wait(ctx) != nil {
			continue
		}
		var mine []string
		for _, p := range paths {
			if within(s.root, p) {
				mine = append(mine, p)
			}
		}
		if len(mine) > 0 {
			s.filesChanged(ctx, mine)
		}
		s.mu.Lock()
		var open []string
		for uri := range s.docs {
			if p := uriPath(uri); paths == nil || slices.Contains(mine, p) {
				open = append(open, p)
			}
		}
		s.mu.Unlock()
		for _, p := range open {
			if ch, err := s.sync(ctx, p); err == nil && ch {
				changed[s.cfg.Name] = append(changed[s.cfg.Name], p)
			}
		}
	}
	return changed
}

// Held implements broker.Service.
func (v *Service) Held() []broker.Held {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []broker.Held
	for _, s := range v.servers {
		h := s.held()
		h.Key = s.key
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind+out[i].Key < out[j].Kind+out[j].Key })
	return out
}

// Close implements broker.Service.
func (v *Service) Close() { v.reload(target{}) }

// Standalone implements broker.Standalone: a query needs only the files,
// so it can run where no broker holds the server (started for the call).
func (v *Service) Standalone() bool { return true }

// diagnostics syncs the files and collects their diagnostics: pulled from
// a server that offers textDocument/diagnostic, else the pushed ones once
// no new publication arrived for SettleMs (at most WaitMs). Files the
// server published for meanwhile (a broken caller elsewhere) come too.
func (s *server) diagnostics(ctx context.Context, c diagnosticsCall) (*diagnosticsResult, error) {
	start := time.Now()
	deadline := start.Add(time.Duration(c.WaitMs) * time.Millisecond)
	settle := time.Duration(max(c.SettleMs, s.cfg.SettleMs)) * time.Millisecond
	changed := false
	for _, f := range c.Files {
		ch, err := s.sync(ctx, f)
		if err != nil {
			return nil, err
		}
		changed = changed || ch
	}
	s.mu.Lock()
	pull := s.pull
	s.mu.Unlock()
	res := &diagnosticsResult{Files: map[string][]Diagnostic{}, Mode: "pushed"}
	if pull {
		res.Mode = "pulled"
		for _, f := range c.Files {
			cctx, cancel := context.WithDeadline(ctx, deadline)
			raw, err := s.request(cctx, "textDocument/diagnostic", map[string]any{"textDocument": TextDocumentIdentifier{URI: fileURI(f)}})
			cancel()
			if err != nil {
				return nil, err
			}
			var rep DocumentDiagnosticReport
			json.Unmarshal(raw, &rep)
			res.Files[f] = rep.Items
		}
	}
	// Pushed diagnostics: wait for a publication after the sync (when the
	// view changed), then for quiet.
	for {
		s.mu.Lock()
		last := time.Time{}
		fresh := true
		for _, p := range s.diags {
			if p.at.After(start) && p.at.After(last) {
				last = p.at
			}
		}
		if changed && !pull {
			for _, f := range c.Files {
				p, ok := s.diags[fileURI(f)]
				// A publication for an older version of the text is
				// stale: a server may push the old set before it checks
				// the new one.
				d := s.docs[fileURI(f)]
				stale := ok && p.version != nil && d != nil && *p.version < d.version
				if !ok || !p.at.After(start) || stale {
					fresh = false
				}
			}
		}
		wake := s.changed
		s.mu.Unlock()
		now := time.Now()
		quietSince := last
		if quietSince.IsZero() {
			quietSince = start
		}
		if fresh && now.Sub(quietSince) >= settle {
			res.Settled = true
			break
		}
		if now.After(deadline) {
			break
		}
		wait := settle - now.Sub(quietSince)
		if wait <= 0 || !fresh {
			wait = 50 * time.Millisecond
		}
		select {
		case <-wake:
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	for uri, p := range s.diags {
		path := uriPath(uri)
		asked := slices.Contains(c.Files, path)
		if _, pulled := res.Files[path]; pulled {
			continue
		}
		if asked || p.at.After(start) {
			res.Files[path] = p.items
		}
	}
	s.mu.Unlock()
	for _, f := range c.Files {
		if _, ok := res.Files[f]; !ok {
			res.Files[f] = []Diagnostic{}
		}
	}
	return res, nil
}

func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
