package debug

import (
	"context"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// adapter is one debug adapter aw knows: how to start it, where it
// applies (root markers), and how it launches a program.
type adapter struct {
	ID        string
	Command   string   // the adapter's executable (debugpy: a python)
	Args      []string // after the executable
	Markers   []string
	Transport string   // stdio, or socket (the adapter listens on a unix socket)
	Programs  []string // what it debugs: file extensions, "dir" (a package directory), "goexe" (a Go executable), "exe" (another)
	// Unsupported says why aw does not drive it yet ("" = it does).
	Unsupported string
}

// adapters is the seed's table, in the order launch picks from.
var adapters = []adapter{
	{ID: "delve", Command: "dlv", Args: []string{"dap"}, Markers: []string{"go.mod"}, Transport: "socket", Programs: []string{".go", "dir", "goexe"}},
	{ID: "debugpy", Command: "python3", Args: []string{"-m", "debugpy.adapter"}, Markers: []string{"pyproject.toml", "setup.py", "requirements.txt"}, Transport: "stdio", Programs: []string{".py"}},
	{ID: "lldb", Command: "lldb-dap", Markers: []string{"Cargo.toml", "CMakeLists.txt"}, Transport: "stdio", Programs: []string{"exe", "goexe"}},
	{ID: "dart", Command: "dart", Args: []string{"debug_adapter"}, Markers: []string{"pubspec.yaml"}, Transport: "stdio", Programs: []string{".dart"},
		Unsupported: "aw does not drive the Dart debug adapter yet"},
}

// Availability is one adapter as adapters shows it.
type Availability struct {
	ID        string   `json:"id"`
	Command   []string `json:"command"`
	Markers   []string `json:"rootMarkers"`
	Marker    string   `json:"marker,omitempty"` // the marker found
	Binary    string   `json:"binary,omitempty"` // the executable found
	Available bool     `json:"available"`
	Reason    string   `json:"reason,omitempty"` // why not
}

// detect applies the seed's rule: a root marker must exist and the binary
// must resolve; either alone starts nothing.
func detect(ws *workspace.Workspace, a adapter) Availability {
	av := Availability{ID: a.ID, Command: append([]string{a.Command}, a.Args...), Markers: a.Markers}
	for _, m := range a.Markers {
		if _, err := os.Stat(filepath.Join(ws.Root, m)); err == nil {
			av.Marker = m
			break
		}
	}
	switch {
	case a.ID == "debugpy":
		av.Binary = debugpyPython(ws.Root)
	case a.ID == "lldb":
		av.Binary = lldbDAP()
	default:
		if p, err := exec.LookPath(a.Command); err == nil {
			av.Binary = p
		} else if a.ID == "delve" {
			av.Binary = goBin("dlv")
		}
	}
	switch {
	case a.Unsupported != "":
		av.Reason = a.Unsupported
	case av.Marker == "":
		av.Reason = "no root marker (" + strings.Join(a.Markers, ", ") + ") in the workspace root"
	case av.Binary == "" && a.ID == "debugpy":
		av.Reason = "no python with debugpy: neither .venv/bin/python nor venv/bin/python nor python3 on PATH can import debugpy (install it into the project's virtual environment, or the python3-debugpy package)"
	case av.Binary == "" && a.ID == "lldb":
		av.Reason = "neither lldb-dap, lldb-dap-VERSION nor lldb-vscode is on PATH (Debian and Ubuntu: apt-get install lldb-19)"
	case av.Binary == "":
		av.Reason = a.Command + " is not on PATH (delve: go install github.com/go-delve/delve/cmd/dlv@latest)"
	default:
		av.Available = true
	}
	return av
}

// goBin finds a tool go install put in GOPATH/bin when it is not on PATH.
func goBin(name string) string {
	dirs := []string{}
	if gp := os.Getenv("GOPATH"); gp != "" {
		dirs = append(dirs, filepath.SplitList(gp)...)
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "bin", name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// lldbDAP finds lldb's debug adapter: lldb-dap, else the newest
// versioned lldb-dap-N that distributions install (Debian's lldb-19 has
// lldb-dap-19 only), else lldb-vscode, its name before LLVM 18.
func lldbDAP() string {
	if p, err := exec.LookPath("lldb-dap"); err == nil {
		return p
	}
	best, bestVersion := "", 0
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		matches, _ := filepath.Glob(filepath.Join(dir, "lldb-dap-*"))
		for _, m := range matches {
			v, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), "lldb-dap-"))
			if err != nil || v <= bestVersion {
				continue
			}
			if p, err := exec.LookPath(m); err == nil {
				best, bestVersion = p, v
			}
		}
	}
	if best != "" {
		return best
	}
	if p, err := exec.LookPath("lldb-vscode"); err == nil {
		return p
	}
	return ""
}

// debugpyPython is the python that runs debugpy: a project-local .venv or
// venv first (a $PATH python is another environment, and a program
// debugged from the wrong one fails as if its code were broken), then
// python3 on PATH, then the system's; the first that imports debugpy.
func debugpyPython(root string) string {
	var cands []string
	for _, v := range []string{".venv", "venv"} {
		for _, n := range []string{"python3", "python"} {
			cands = append(cands, filepath.Join(root, v, "bin", n))
		}
	}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	for _, c := range cands {
		if st, err := os.Stat(c); err != nil || st.IsDir() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := exec.CommandContext(ctx, c, "-c", "import debugpy").Run()
		cancel()
		if err == nil {
			return c
		}
	}
	return ""
}

// adapterFor picks the adapter of a program: by name when given, else the
// first available one that takes the program's kind (its extension, a
// directory or an executable), else the first that takes it, to say why
// it cannot start.
func adapterFor(ws *workspace.Workspace, id, program string, st os.FileInfo) (adapter, Availability, bool) {
	kind := filepath.Ext(program)
	switch {
	case st.IsDir():
		kind = "dir"
	case kind == "" && st.Mode()&0o111 != 0:
		kind = "exe"
		if _, err := buildinfo.ReadFile(program); err == nil {
			kind = "goexe"
		}
	}
	var first *adapter
	var firstAv Availability
	for i, a := range adapters {
		if id != "" && a.ID != id || id == "" && !takes(a, kind) {
			continue
		}
		av := detect(ws, a)
		if id != "" || av.Available {
			return a, av, true
		}
		if first == nil {
			first, firstAv = &adapters[i], av
		}
	}
	if first != nil {
		return *first, firstAv, true
	}
	return adapter{}, Availability{}, false
}

func takes(a adapter, ext string) bool {
	for _, e := range a.Programs {
		if e == ext {
			return true
		}
	}
	return false
}
