package debug

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	Programs  []string // the program extensions it takes ("" = a directory or an executable)
	// Unsupported says why aw does not drive it yet ("" = it does).
	Unsupported string
}

// adapters is the seed's table, in the order launch picks from.
var adapters = []adapter{
	{ID: "delve", Command: "dlv", Args: []string{"dap"}, Markers: []string{"go.mod"}, Transport: "socket", Programs: []string{".go", ""}},
	{ID: "debugpy", Command: "python3", Args: []string{"-m", "debugpy.adapter"}, Markers: []string{"pyproject.toml", "setup.py", "requirements.txt"}, Transport: "stdio", Programs: []string{".py"}},
	{ID: "lldb", Command: "lldb-dap", Markers: []string{"Cargo.toml", "CMakeLists.txt"}, Transport: "stdio", Programs: []string{""},
		Unsupported: "aw does not drive lldb-dap yet: debug C, C++ and Rust programs with lldb directly through `aw command run`"},
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

// adapterFor picks the adapter of a program: by name when given, else by
// the program's extension among the adapters available here.
func adapterFor(ws *workspace.Workspace, id, program string, isDir bool) (adapter, Availability, bool) {
	ext := filepath.Ext(program)
	if isDir {
		ext = ""
	}
	for _, a := range adapters {
		if id != "" && a.ID != id {
			continue
		}
		if id == "" && !takes(a, ext) {
			continue
		}
		return a, detect(ws, a), true
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
