package lsp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// builtins are the servers aw knows without settings, in the order a
// language's candidates are tried (pyright before pylsp).
var builtins = []workspace.LSPServer{
	{Name: "gopls", Command: "gopls", Languages: []string{"go"}, RootMarkers: []string{"go.work", "go.mod"}, Checker: []string{"go", "vet", "./..."}},
	{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Languages: []string{"py", "pyi"}, RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}, Checker: []string{"pyright"}},
	{Name: "pylsp", Command: "pylsp", Languages: []string{"py", "pyi"}, RootMarkers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
	{Name: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"}, Languages: []string{"ts", "tsx", "js", "jsx", "mjs", "cjs"}, RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}, Checker: []string{"tsc", "--noEmit", "-p", "."},
		// It publishes a file's syntactic diagnostics, then its semantic
		// ones well after 300 ms.
		SettleMs: 1000},
	{Name: "clangd", Command: "clangd", Languages: []string{"c", "h", "cc", "cpp", "cxx", "hpp", "hh"}, RootMarkers: []string{"compile_commands.json", "compile_flags.txt", "CMakeLists.txt"}},
}

// servers are lsp.servers over the built-ins: one with a built-in's name
// replaces it, the others come first.
func servers(s *workspace.Settings) []workspace.LSPServer {
	out := slices.Clone(s.LSP.Servers)
	for _, b := range builtins {
		if !slices.ContainsFunc(out, func(o workspace.LSPServer) bool { return o.Name == b.Name }) {
			out = append(out, b)
		}
	}
	return out
}

// languageOf is a file's language as lsp.servers names them: its extension.
func languageOf(path string) string {
	return strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
}

// candidate is one server considered for a file or a workspace, and why it
// can or cannot answer.
type candidate struct {
	Server workspace.LSPServer `json:"-"`
	Name   string              `json:"name"`
	// Languages the server is for.
	Languages []string `json:"languages"`
	Root      string   `json:"root,omitempty"` // workspace-relative, "." for the root
	Binary    string   `json:"binary,omitempty"`
	Available bool     `json:"available"`
	Reason    string   `json:"reason,omitempty"`
	abs       string
}

// detect decides whether server can answer for dir (absolute, inside the
// root): a root marker in dir or an ancestor up to the workspace root, and
// a resolvable binary. Either alone starts nothing.
func detect(ws *workspace.Workspace, server workspace.LSPServer, dir string) candidate {
	c := candidate{Server: server, Name: server.Name, Languages: server.Languages}
	root, marker := markerRoot(ws.Root, dir, server.RootMarkers)
	bin, err := exec.LookPath(server.Command)
	switch {
	case root == "" && err != nil:
		c.Reason = fmt.Sprintf("no root marker (%s) and %s is not on PATH", strings.Join(server.RootMarkers, ", "), server.Command)
	case root == "":
		c.Reason = fmt.Sprintf("no root marker (%s) in the workspace", strings.Join(server.RootMarkers, ", "))
	case err != nil:
		c.Reason = fmt.Sprintf("%s found, but the server binary %s is not on PATH: install it, or set lsp.servers", marker, server.Command)
	default:
		c.Available = true
	}
	if root != "" {
		c.abs = root
		c.Root = rel(ws.Root, root)
	}
	if err == nil {
		c.Binary = bin
	}
	return c
}

// markerRoot is the nearest directory from dir up to root holding one of
// markers, and the marker's relative path.
func markerRoot(root, dir string, markers []string) (string, string) {
	for d := dir; ; d = filepath.Dir(d) {
		for _, m := range markers {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d, rel(root, filepath.Join(d, m))
			}
		}
		if d == root || !strings.HasPrefix(d, root) || d == filepath.Dir(d) {
			return "", ""
		}
	}
}

// forFile picks the server for a file: the first for its language that
// can answer, else the first for its language (with why not).
func forFile(ws *workspace.Workspace, abs string) (candidate, bool) {
	lang := languageOf(abs)
	var first *candidate
	for _, s := range servers(&ws.Settings) {
		if !slices.Contains(s.Languages, lang) {
			continue
		}
		c := detect(ws, s, filepath.Dir(abs))
		if c.Available {
			return c, true
		}
		if first == nil {
			first = &c
		}
	}
	if first == nil {
		return candidate{}, false
	}
	return *first, true
}

func rel(root, abs string) string {
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}
