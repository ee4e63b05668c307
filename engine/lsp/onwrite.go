package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// settleMs is how long a diagnostics set must stay unchanged to count as
// settled.
const settleMs = 300

// OnWrite is data.diagnostics of a write: the diagnostics the write newly
// introduced, or why there are none to give.
type OnWrite struct {
	Available   bool              `json:"available"`
	Reason      string            `json:"reason,omitempty"` // why unavailable
	New         []DiagnosticEntry `json:"new"`
	Total       int               `json:"total"` // in the files looked at, new or not
	Settled     bool              `json:"settled"`
	Servers     []string          `json:"servers,omitempty"`
	WaitedMs    int64             `json:"waitedMs"`
	Suppressed  int               `json:"suppressed"` // already reported before
	FilesLooked []string          `json:"files"`
}

// settable is the data of a write action that can carry diagnostics.
type settable interface{ SetDiagnostics(any) }

// FoldDiagnostics adds to env the diagnostics newly introduced in files
// (absolute paths a write changed; nil: whatever the broker's servers have
// open changed), deduplicated by the workspace's ledger. It never fails the
// write and never waits past lsp.diagnosticsWaitMs: a slow or broken
// server is reported as unavailable, with why. Files no server is
// available for are skipped without a word, and so is every write where
// no broker runs (a server started per write would cost seconds each).
func FoldDiagnostics(ctx context.Context, ws *workspace.Workspace, files []string, env *envelope.Envelope) {
	data, ok := env.Data.(settable)
	if !ok || !env.OK || !ws.Settings.LSP.DiagnosticsOnWrite || broker.PerCall(ws) {
		return
	}
	groups := map[string][]string{}
	cands := map[string]candidate{}
	for _, f := range files {
		c, ok := forFile(ws, f)
		if !ok || !c.Available {
			continue
		}
		k := c.target().key()
		groups[k] = append(groups[k], f)
		cands[k] = c
	}
	if files != nil && len(groups) == 0 {
		return
	}
	start := time.Now()
	wait := time.Duration(ws.Settings.LSP.DiagnosticsWaitMs) * time.Millisecond
	ctx, cancel := context.WithTimeout(ctx, wait+500*time.Millisecond)
	defer cancel()
	ow := &OnWrite{Available: true, Settled: true, New: []DiagnosticEntry{}, FilesLooked: []string{}}
	if files == nil {
		// A command ran: the broker re-reads what its servers have open.
		var res struct {
			Changed map[string][]string `json:"changed"`
		}
		running, err := broker.Query(ctx, ws, "lsp.touched", touchedCall{}, &res)
		if !running || err != nil {
			return
		}
		for _, list := range res.Changed {
			for _, f := range list {
				if c, ok := forFile(ws, f); ok && c.Available {
					k := c.target().key()
					groups[k] = append(groups[k], f)
					cands[k] = c
				}
			}
		}
		if len(groups) == 0 {
			return
		}
	}
	found := map[string][]Diagnostic{}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	remaining := func() int { return int((wait - time.Since(start)) / time.Millisecond) }
	for _, k := range keys {
		c := cands[k]
		ow.Servers = append(ow.Servers, c.Name)
		var res diagnosticsResult
		err := broker.Call(ctx, ws, "lsp.diagnostics", diagnosticsCall{target: c.target(), Files: groups[k], SettleMs: settleMs, WaitMs: max(remaining(), 0)}, &res)
		if err != nil {
			ow.Available, ow.Settled = false, false
			ow.Reason = fmt.Sprintf("%s: %s", c.Name, message(err))
			if ctx.Err() != nil {
				ow.Reason = fmt.Sprintf("%s did not answer within lsp.diagnosticsWaitMs (%d ms); it may still be starting: `aw lsp diagnostics FILE` asks again", c.Name, ws.Settings.LSP.DiagnosticsWaitMs)
			}
			continue
		}
		ow.Settled = ow.Settled && res.Settled
		for f, d := range res.Files {
			found[f] = d
		}
	}
	ow.WaitedMs = int64(time.Since(start) / time.Millisecond)
	all := entries(ws, found)
	ow.Total = len(all)
	for f := range found {
		ow.FilesLooked = append(ow.FilesLooked, ws.Rel(f))
	}
	sort.Strings(ow.FilesLooked)
	fresh, suppressed := ledgerNew(ws, found, all)
	ow.New, ow.Suppressed = fresh, suppressed
	data.SetDiagnostics(ow)
	switch {
	case !ow.Available:
		env.Fact("diagnostics unavailable: %s", clip(ow.Reason, 200))
	case len(ow.New) == 0:
		env.Fact("no new diagnostics (data.diagnostics)")
	default:
		env.Fact("%d new diagnostics (data.diagnostics): %s:%d: %s", len(ow.New), ow.New[0].Path, ow.New[0].Line, clip(ow.New[0].Message, 160))
	}
}

// ledgerPath holds, per file, the diagnostics last reported.
func ledgerPath(ws *workspace.Workspace) string { return ws.StatePath("lsp", "ledger.json") }

type ledger struct {
	Files map[string][]string `json:"files"` // relative path → severity|code|message
}

func ledgerKey(e DiagnosticEntry) string { return e.Severity + "|" + e.Code + "|" + e.Message }

// ledgerNew returns the entries not already reported for their file, and
// records what each looked-at file holds now. The key leaves the position
// out: a diagnostic that merely moved is not new.
func ledgerNew(ws *workspace.Workspace, found map[string][]Diagnostic, all []DiagnosticEntry) ([]DiagnosticEntry, int) {
	fresh := []DiagnosticEntry{}
	suppressed := 0
	err := updateLedger(ws, func(l *ledger) {
		if l.Files == nil {
			l.Files = map[string][]string{}
		}
		now := map[string][]string{}
		for f := range found {
			now[filepath.ToSlash(ws.Rel(f))] = []string{}
		}
		for _, e := range all {
			k := ledgerKey(e)
			if slices.Contains(l.Files[e.Path], k) {
				suppressed++
			} else {
				fresh = append(fresh, e)
			}
			now[e.Path] = append(now[e.Path], k)
		}
		for f, keys := range now {
			if len(keys) == 0 {
				delete(l.Files, f)
			} else {
				l.Files[f] = keys
			}
		}
	})
	if err != nil {
		return all, 0 // no ledger: report everything rather than nothing
	}
	return fresh, suppressed
}

func updateLedger(ws *workspace.Workspace, fn func(*ledger)) error {
	return store.Update(ws.Store, ledgerPath(ws), func(l *ledger) error {
		fn(l)
		return nil
	})
}

// message is an error's text without its code.
func message(err error) string {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
