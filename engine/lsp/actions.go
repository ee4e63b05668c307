// Package lsp is aw's language intelligence: queries to language servers
// (definition, references, hover, symbols, diagnostics, code actions), a
// project-wide rename as an aw transaction, and the diagnostics an edit or a
// command newly introduced, folded into its envelope.
//
// Servers run in the workspace's broker (engine/broker), which keeps them
// warm across aw calls; this package is both the broker's "lsp" service
// (Service: one server per server name and root, documents synchronised by
// content hash, pushed diagnostics recorded) and the aw side of every action
// (positions, the jail, paths and excerpts, the ledger).
//
// Positions are a line and a symbol substring on it, never a column: a
// column a model guesses resolves to some other symbol on the same line.
// The symbol's first occurrence on the line is used; a symbol that is on
// the line only inside a longer identifier still matches (the server
// resolves what lies under its first character).
//
// Decisions where the product contract is silent: servers see the
// workspace read-only through the OS sandbox (edits reach files only as aw
// transactions; a server's workspace/applyEdit is refused); their network
// is off and toolchains are pinned to what is installed (GOPROXY=off,
// GOTOOLCHAIN=local); a location outside the workspace (the standard
// library) is given by its absolute path without an excerpt.
package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Caps of the seed.
const (
	maxReferences       = 50
	maxWorkspaceSymbols = 100
	maxDocumentSymbols  = 200
	maxCodeActions      = 50
	maxHoverChars       = 4000
)

// callTimeout bounds one query, including a cold server's start.
const callTimeout = 90 * time.Second

// PositionRequest names a symbol by file, line and substring.
type PositionRequest struct {
	File   string `json:"file" doc:"the file the symbol is in, relative to the workspace root"`
	Line   int    `json:"line" doc:"the 1-based line the symbol is on"`
	Symbol string `json:"symbol" doc:"the symbol's text on that line (its first occurrence is used); never a column"`
}

// SymbolsRequest is a workspace search (query) or a document's symbols (file).
type SymbolsRequest struct {
	Query string `json:"query,omitempty" doc:"search the workspace's symbols for this text (at most 100 results)"`
	File  string `json:"file,omitempty" doc:"list this file's symbols (at most 200); give a query or a file"`
}

// DiagnosticsRequest names a file, or "*" for the project checker.
type DiagnosticsRequest struct {
	File string `json:"file" doc:"the file, relative to the workspace root, or * for everything the server reports for the workspace"`
}

// StatusRequest is lsp status.
type StatusRequest struct{}

// ReloadRequest is lsp reload.
type ReloadRequest struct{}

// Place is one answer location: workspace-relative path (absolute outside
// the workspace), 1-based line and column, and the line's text.
type Place struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Excerpt string `json:"excerpt,omitempty"`
	Outside bool   `json:"outside,omitempty"`
}

// position is a resolved request: the file, its server, and the LSP
// position of the symbol.
type position struct {
	path  workspace.Path
	cand  candidate
	pos   Position
	text  string // the line
	match Range
}

// locate resolves file, line and symbol: INVALID_INPUT without a symbol or
// line, NOT_FOUND (naming what the line holds) when the symbol is not on it.
func locate(ws *workspace.Workspace, r *PositionRequest) (*position, error) {
	if r.File == "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "file is required: the file the symbol is in")
	}
	if r.Symbol == "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "symbol is required: a navigation action takes the symbol's text on the line (never a column), e.g. `aw lsp definition main.go 12 Println`")
	}
	if r.Line < 1 {
		return nil, envelope.Errorf(envelope.InvalidInput, "line must be 1 or more (lines count from 1), got %d", r.Line)
	}
	p, err := ws.Jail.Resolve(r.File, workspace.Read)
	if err != nil {
		return nil, err
	}
	lines, err := readLines(p.Abs, r.Line)
	if err != nil {
		return nil, envelope.Errorf(envelope.NotFound, "cannot read %s: %v", p.Rel, err).With("path", p.Rel)
	}
	if len(lines) < r.Line {
		return nil, envelope.Errorf(envelope.NotFound, "%s has %d lines, not %d", p.Rel, len(lines), r.Line).With("path", p.Rel)
	}
	line := lines[r.Line-1]
	i := strings.Index(line, r.Symbol)
	if i < 0 {
		return nil, envelope.Errorf(envelope.NotFound, "%q is not on line %d of %s, which holds: %s; pass the line the symbol is on", r.Symbol, r.Line, p.Rel, clip(strings.TrimSpace(line), 200)).
			With("path", p.Rel).With("line", r.Line).With("text", clip(line, 200))
	}
	c, err := serverFor(ws, p)
	if err != nil {
		return nil, err
	}
	start := Position{Line: r.Line - 1, Character: utf16Len(line[:i])}
	end := Position{Line: r.Line - 1, Character: start.Character + utf16Len(r.Symbol)}
	return &position{path: p, cand: c, pos: start, text: line, match: Range{Start: start, End: end}}, nil
}

// serverFor finds the server for a file, or says exactly why none can answer.
func serverFor(ws *workspace.Workspace, p workspace.Path) (candidate, error) {
	c, ok := forFile(ws, p.Abs)
	if !ok {
		return c, envelope.Errorf(envelope.NotFound, "no language server is configured for .%s files (%s); add one to lsp.servers", languageOf(p.Abs), p.Rel).With("path", p.Rel)
	}
	if !c.Available {
		return c, envelope.Errorf(envelope.NotFound, "no %s server can answer for %s: %s", c.Name, p.Rel, c.Reason).With("server", c.Name).With("reason", c.Reason)
	}
	return c, nil
}

func (c candidate) target() target { return target{Server: c.Server, Root: c.abs} }

// query sends one LSP request for pos's document through the broker.
func query(ctx context.Context, ws *workspace.Workspace, c candidate, sync []string, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var out json.RawMessage
	err = broker.Call(ctx, ws, "lsp.request", requestCall{target: c.target(), Sync: sync, Method: method, Params: raw}, &out)
	return out, err
}

func (p *position) params() TextDocumentPositionParams {
	return TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: fileURI(p.path.Abs)}, Position: p.pos}
}

// Definition is lsp definition.
func Definition(ctx context.Context, ws *workspace.Workspace, r *PositionRequest) (envelope.Envelope, error) {
	return navigate(ctx, ws, r, "textDocument/definition", "definition", 0)
}

// TypeDefinition is lsp type-definition.
func TypeDefinition(ctx context.Context, ws *workspace.Workspace, r *PositionRequest) (envelope.Envelope, error) {
	return navigate(ctx, ws, r, "textDocument/typeDefinition", "type definition", 0)
}

// Implementation is lsp implementation.
func Implementation(ctx context.Context, ws *workspace.Workspace, r *PositionRequest) (envelope.Envelope, error) {
	return navigate(ctx, ws, r, "textDocument/implementation", "implementation", maxReferences)
}

// References is lsp references (at most 50).
func References(ctx context.Context, ws *workspace.Workspace, r *PositionRequest) (envelope.Envelope, error) {
	return navigate(ctx, ws, r, "textDocument/references", "reference", maxReferences)
}

// NavigationData is the answer of definition, type-definition,
// implementation and references.
type NavigationData struct {
	Symbol    string  `json:"symbol"`
	Server    string  `json:"server"`
	Locations []Place `json:"locations"`
	Total     int     `json:"total"`
	Truncated bool    `json:"truncated"`
}

func navigate(ctx context.Context, ws *workspace.Workspace, r *PositionRequest, method, what string, limit int) (envelope.Envelope, error) {
	pos, err := locate(ws, r)
	if err != nil {
		return envelope.Envelope{}, err
	}
	var params any = pos.params()
	if method == "textDocument/references" {
		rp := ReferenceParams{TextDocumentPositionParams: pos.params()}
		rp.Context.IncludeDeclaration = true
		params = rp
	}
	raw, err := query(ctx, ws, pos.cand, []string{pos.path.Abs}, method, params)
	if err != nil {
		return envelope.Envelope{}, err
	}
	locs := decodeLocations(raw)
	d := NavigationData{Symbol: r.Symbol, Server: pos.cand.Name, Total: len(locs), Locations: []Place{}}
	if limit > 0 && len(locs) > limit {
		locs, d.Truncated = locs[:limit], true
	}
	d.Locations = places(ws, locs)
	env := envelope.New("", navSummary(what, r.Symbol, d), d)
	for i, l := range d.Locations {
		if i == 5 {
			break
		}
		env.Fact("%s:%d", l.Path, l.Line)
	}
	if d.Truncated {
		env.Fact("%d of %d shown", len(d.Locations), d.Total)
	}
	env.Omit("data.locations")
	return env, nil
}

func navSummary(what, symbol string, d NavigationData) string {
	switch {
	case d.Total == 0:
		return fmt.Sprintf("no %s of %s found (%s)", what, symbol, d.Server)
	case d.Total == 1:
		l := d.Locations[0]
		return fmt.Sprintf("%s of %s: %s:%d", what, symbol, l.Path, l.Line)
	case d.Truncated:
		return fmt.Sprintf("%d %ss of %s, first %d shown", d.Total, what, symbol, len(d.Locations))
	}
	return fmt.Sprintf("%d %ss of %s", d.Total, what, symbol)
}

// decodeLocations reads Location, []Location or []LocationLink.
func decodeLocations(raw json.RawMessage) []Location {
	var one Location
	if json.Unmarshal(raw, &one) == nil && one.URI != "" {
		return []Location{one}
	}
	var many []json.RawMessage
	json.Unmarshal(raw, &many)
	var out []Location
	for _, m := range many {
		var l Location
		if json.Unmarshal(m, &l) == nil && l.URI != "" {
			out = append(out, l)
			continue
		}
		var ll LocationLink
		if json.Unmarshal(m, &ll) == nil && ll.TargetURI != "" {
			out = append(out, Location{URI: ll.TargetURI, Range: ll.TargetSelectionRange})
		}
	}
	return out
}

// places turns locations into workspace paths with excerpts; files the
// jail does not let aw read (denyPaths) keep only their path.
func places(ws *workspace.Workspace, locs []Location) []Place {
	out := []Place{}
	cache := map[string][]string{}
	for _, l := range locs {
		abs := uriPath(l.URI)
		pl := Place{Line: l.Range.Start.Line + 1, Column: l.Range.Start.Character + 1}
		p, err := ws.Jail.Resolve(abs, workspace.Read)
		if err != nil {
			pl.Path, pl.Outside = abs, true
			if within(ws.Root, abs) {
				pl.Path = ws.Rel(abs) // inside but denied: the path, never the text
			}
			out = append(out, pl)
			continue
		}
		pl.Path, pl.Outside = p.Rel, p.Outside
		lines, ok := cache[p.Abs]
		if !ok {
			lines, _ = readLines(p.Abs, 0)
			cache[p.Abs] = lines
		}
		if l.Range.Start.Line < len(lines) {
			line := lines[l.Range.Start.Line]
			pl.Excerpt = clip(strings.TrimSpace(line), 200)
			pl.Column = byteColumn(line, l.Range.Start.Character) + 1
		}
		out = append(out, pl)
	}
	return out
}

// HoverData is hover's answer.
type HoverData struct {
	Symbol    string `json:"symbol"`
	Server    string `json:"server"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
}

// Hover is lsp hover: the signature and doc comment.
func Hover(ctx context.Context, ws *workspace.Workspace, r *PositionRequest) (envelope.Envelope, error) {
	pos, err := locate(ws, r)
	if err != nil {
		return envelope.Envelope{}, err
	}
	raw, err := query(ctx, ws, pos.cand, []string{pos.path.Abs}, "textDocument/hover", pos.params())
	if err != nil {
		return envelope.Envelope{}, err
	}
	var h HoverResult
	json.Unmarshal(raw, &h)
	text := markup(h.Contents)
	d := HoverData{Symbol: r.Symbol, Server: pos.cand.Name, Text: text}
	if len(d.Text) > maxHoverChars {
		d.Text, d.Truncated = clip(d.Text, maxHoverChars), true
	}
	if text == "" {
		return envelope.New("", fmt.Sprintf("no hover information for %s (%s)", r.Symbol, pos.cand.Name), d), nil
	}
	first, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "```go")), "\n")
	return envelope.New("", fmt.Sprintf("%s: %s", r.Symbol, clip(first, 160)), d), nil
}

// markup flattens hover contents (MarkupContent, MarkedString or a list).
func markup(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, e := range list {
			if t := markup(e); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// SymbolEntry is one symbol.
type SymbolEntry struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Container string `json:"container,omitempty"`
	Depth     int    `json:"depth,omitempty"`
}

// SymbolsData is symbols' answer.
type SymbolsData struct {
	Server    string        `json:"server"`
	Symbols   []SymbolEntry `json:"symbols"`
	Total     int           `json:"total"`
	Truncated bool          `json:"truncated"`
}

// Symbols is lsp symbols: a workspace search (query, at most 100) or a
// document's symbols (file, at most 200).
func Symbols(ctx context.Context, ws *workspace.Workspace, r *SymbolsRequest) (envelope.Envelope, error) {
	if (r.Query == "") == (r.File == "") {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "symbols takes a query (a workspace search) or a file (its symbols), one of the two")
	}
	var d SymbolsData
	if r.File != "" {
		p, err := ws.Jail.Resolve(r.File, workspace.Read)
		if err != nil {
			return envelope.Envelope{}, err
		}
		c, err := serverFor(ws, p)
		if err != nil {
			return envelope.Envelope{}, err
		}
		raw, err := query(ctx, ws, c, []string{p.Abs}, "textDocument/documentSymbol", map[string]any{"textDocument": TextDocumentIdentifier{URI: fileURI(p.Abs)}})
		if err != nil {
			return envelope.Envelope{}, err
		}
		d.Server = c.Name
		d.Symbols = documentSymbols(ws, p, raw)
		d.Total = len(d.Symbols)
		if len(d.Symbols) > maxDocumentSymbols {
			d.Symbols, d.Truncated = d.Symbols[:maxDocumentSymbols], true
		}
	} else {
		c, err := workspaceServer(ws)
		if err != nil {
			return envelope.Envelope{}, err
		}
		raw, err := query(ctx, ws, c, nil, "workspace/symbol", map[string]any{"query": r.Query})
		if err != nil {
			return envelope.Envelope{}, err
		}
		var list []SymbolInformation
		json.Unmarshal(raw, &list)
		d.Server, d.Total = c.Name, len(list)
		if len(list) > maxWorkspaceSymbols {
			list, d.Truncated = list[:maxWorkspaceSymbols], true
		}
		for _, s := range list {
			pl := places(ws, []Location{s.Location})[0]
			d.Symbols = append(d.Symbols, SymbolEntry{Name: s.Name, Kind: kindName(s.Kind), Path: pl.Path, Line: pl.Line, Container: s.ContainerName})
		}
	}
	if d.Symbols == nil {
		d.Symbols = []SymbolEntry{}
	}
	summary := fmt.Sprintf("%d symbols (%s)", d.Total, d.Server)
	if d.Truncated {
		summary = fmt.Sprintf("%d symbols, first %d shown (%s)", d.Total, len(d.Symbols), d.Server)
	}
	env := envelope.New("", summary, d)
	env.Omit("data.symbols")
	return env, nil
}

func documentSymbols(ws *workspace.Workspace, p workspace.Path, raw json.RawMessage) []SymbolEntry {
	var list []json.RawMessage
	json.Unmarshal(raw, &list)
	var out []SymbolEntry
	var walk func(s DocumentSymbol, depth int, container string)
	walk = func(s DocumentSymbol, depth int, container string) {
		out = append(out, SymbolEntry{Name: s.Name, Kind: kindName(s.Kind), Path: p.Rel, Line: s.SelectionRange.Start.Line + 1, Container: container, Depth: depth})
		for _, c := range s.Children {
			walk(c, depth+1, s.Name)
		}
	}
	for _, m := range list {
		var si SymbolInformation
		if json.Unmarshal(m, &si) == nil && si.Location.URI != "" {
			out = append(out, SymbolEntry{Name: si.Name, Kind: kindName(si.Kind), Path: p.Rel, Line: si.Location.Range.Start.Line + 1, Container: si.ContainerName})
			continue
		}
		var ds DocumentSymbol
		if json.Unmarshal(m, &ds) == nil {
			walk(ds, 0, "")
		}
	}
	return out
}

// workspaceServer is the server a workspace-wide query goes to: the first
// that can answer for the workspace root.
func workspaceServer(ws *workspace.Workspace) (candidate, error) {
	var why []string
	for _, s := range servers(&ws.Settings) {
		c := detect(ws, s, ws.Root)
		if c.Available {
			return c, nil
		}
		why = append(why, c.Name+": "+c.Reason)
	}
	return candidate{}, envelope.Errorf(envelope.NotFound, "no language server can answer for this workspace (%s); `aw lsp status` shows each", strings.Join(why, "; "))
}

// CodeAction is one quick fix or refactoring a server offers.
type CodeAction struct {
	Title     string `json:"title"`
	Kind      string `json:"kind,omitempty"`
	Preferred bool   `json:"preferred,omitempty"`
	HasEdit   bool   `json:"hasEdit"`
}

// CodeActionsData is code-actions' answer.
type CodeActionsData struct {
	Symbol  string       `json:"symbol"`
	Server  string       `json:"server"`
	Actions []CodeAction `json:"actions"`
}

// CodeActions is lsp code-actions: the quick fixes and refactorings the
// server offers at the symbol (with the diagnostics of its line).
func CodeActions(ctx context.Context, ws *workspace.Workspace, r *PositionRequest) (envelope.Envelope, error) {
	pos, err := locate(ws, r)
	if err != nil {
		return envelope.Envelope{}, err
	}
	diags, _ := fileDiagnostics(ctx, ws, pos.cand, []string{pos.path.Abs}, 300, 3000)
	var onLine []Diagnostic
	for _, d := range diags.Files[pos.path.Abs] {
		if d.Range.Start.Line <= pos.pos.Line && d.Range.End.Line >= pos.pos.Line {
			onLine = append(onLine, d)
		}
	}
	if onLine == nil {
		onLine = []Diagnostic{}
	}
	raw, err := query(ctx, ws, pos.cand, []string{pos.path.Abs}, "textDocument/codeAction", map[string]any{
		"textDocument": TextDocumentIdentifier{URI: fileURI(pos.path.Abs)},
		"range":        pos.match,
		"context":      map[string]any{"diagnostics": onLine},
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	var list []CodeAction
	var actions []struct {
		Title       string          `json:"title"`
		Kind        string          `json:"kind"`
		IsPreferred bool            `json:"isPreferred"`
		Edit        json.RawMessage `json:"edit"`
	}
	json.Unmarshal(raw, &actions)
	for _, a := range actions {
		list = append(list, CodeAction{Title: a.Title, Kind: a.Kind, Preferred: a.IsPreferred, HasEdit: len(a.Edit) > 0 && string(a.Edit) != "null"})
	}
	if len(list) > maxCodeActions {
		list = list[:maxCodeActions]
	}
	if list == nil {
		list = []CodeAction{}
	}
	d := CodeActionsData{Symbol: r.Symbol, Server: pos.cand.Name, Actions: list}
	env := envelope.New("", fmt.Sprintf("%d code actions at %s (%s); applying them is not offered: make the change with aw edit", len(list), r.Symbol, pos.cand.Name), d)
	return env, nil
}

// fileDiagnostics asks the broker for the settled diagnostics of files.
func fileDiagnostics(ctx context.Context, ws *workspace.Workspace, c candidate, files []string, settleMs, waitMs int) (diagnosticsResult, error) {
	var res diagnosticsResult
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	err := broker.Call(ctx, ws, "lsp.diagnostics", diagnosticsCall{target: c.target(), Files: files, SettleMs: settleMs, WaitMs: waitMs}, &res)
	return res, err
}

// readLines reads a file's lines (up to n when n > 0), without line ends.
func readLines(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var out []string
	for sc.Scan() {
		out = append(out, strings.TrimSuffix(sc.Text(), "\r"))
		if n > 0 && len(out) >= n {
			break
		}
	}
	return out, sc.Err()
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// byteColumn converts a UTF-16 offset on line to a byte offset.
func byteColumn(line string, u16 int) int {
	n := 0
	for i, r := range line {
		if n >= u16 {
			return i
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return len(line)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

var _ = filepath.Join
