package lsp

import "encoding/json"

// The part of the Language Server Protocol 3.17 aw speaks, with the
// specification's names. aw declares the subset it uses: the Go modules of
// generated 3.17 types are either internal to gopls or older protocol
// versions that bring a logging framework with them, and the framing and
// JSON-RPC are the library's (github.com/sourcegraph/jsonrpc2).

// Position is zero-based; Character counts UTF-16 code units.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span of a document.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// LocationLink is the richer answer of definition requests.
type LocationLink struct {
	TargetURI            string `json:"targetUri"`
	TargetRange          Range  `json:"targetRange"`
	TargetSelectionRange Range  `json:"targetSelectionRange"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// TextDocumentItem is an opened document.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

// TextDocumentPositionParams is the argument of every position request.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// ReferenceParams adds the reference context.
type ReferenceParams struct {
	TextDocumentPositionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

// RenameParams asks for a workspace edit.
type RenameParams struct {
	TextDocumentPositionParams
	NewName string `json:"newName"`
}

// TextEdit replaces a range.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// WorkspaceEdit is a rename's answer: changes, or documentChanges.
type WorkspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []json.RawMessage     `json:"documentChanges,omitempty"`
}

// TextDocumentEdit is one entry of documentChanges (a create, rename or
// delete file entry has a "kind" instead).
type TextDocumentEdit struct {
	Kind         string `json:"kind,omitempty"`
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Edits []TextEdit `json:"edits"`
}

// Diagnostic is one error or warning.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity,omitempty"` // 1 error, 2 warning, 3 information, 4 hint
	Code     json.RawMessage `json:"code,omitempty"`     // integer or string
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// PublishDiagnosticsParams is the pushed notification.
type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// DocumentDiagnosticReport is a pulled report (kind full or unchanged).
type DocumentDiagnosticReport struct {
	Kind  string       `json:"kind"`
	Items []Diagnostic `json:"items"`
}

// HoverResult is hover's answer; contents is MarkupContent, MarkedString
// or a list of them.
type HoverResult struct {
	Contents json.RawMessage `json:"contents"`
	Range    *Range          `json:"range,omitempty"`
}

// SymbolInformation is a workspace symbol (and the flat document form).
type SymbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      Location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

// DocumentSymbol is the hierarchical document form.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// symbolKinds names SymbolKind 1..26.
var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enumMember", "struct", "event", "operator", "typeParameter"}

func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}

// initializeParams is what aw tells a server it can do: synchronisation
// with full text, pushed diagnostics, hierarchical document symbols,
// markdown hover, and workspace edits as changes or documentChanges.
// Pulled diagnostics are used when a server offers them (statically or by
// dynamic registration), but not asked for: a server told the client
// pulls stops pushing, and pyright's pulled reports lag its analysis
// (an empty report, then one that waits for the whole workspace), where
// its pushed ones arrive as soon as the file is checked.
//
// processId is null: inside the sandbox's PID namespace the broker's pid
// names no process, and a server that watches its parent (every
// vscode-languageserver one) would exit at once. The sandbox and the
// broker end servers instead.
func initializeParams(rootURI, name string, options map[string]any) map[string]any {
	params := map[string]any{
		"processId":        nil,
		"clientInfo":       map[string]any{"name": "aw"},
		"rootUri":          rootURI,
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": name}},
		"capabilities": map[string]any{
			"workspace": map[string]any{
				"workspaceEdit":          map[string]any{"documentChanges": true},
				"configuration":          true,
				"workspaceFolders":       true,
				"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": true},
				"diagnostics":            map[string]any{"refreshSupport": false},
				"symbol":                 map[string]any{"dynamicRegistration": false},
				"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
			},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"dynamicRegistration": true, "didSave": true},
				"publishDiagnostics": map[string]any{"relatedInformation": false, "versionSupport": true},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"definition":         map[string]any{"linkSupport": true},
				"typeDefinition":     map[string]any{"linkSupport": true},
				"implementation":     map[string]any{"linkSupport": true},
				"references":         map[string]any{},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"codeAction": map[string]any{"codeActionLiteralSupport": map[string]any{
					"codeActionKind": map[string]any{"valueSet": []string{"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"}}}},
				"rename": map[string]any{"prepareSupport": false},
			},
			"window": map[string]any{"workDoneProgress": true},
		},
	}
	if options != nil {
		params["initializationOptions"] = options
	}
	return params
}
