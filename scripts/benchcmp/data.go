package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// dataVersion changes whenever the generated data changes shape, so a
// reused --data directory from an older harness is regenerated.
const dataVersion = 1

// The patterns the search rows look for. The generator plants them at known
// rates; the peers find them independently, so the rates only set the size
// of the result, not its correctness.
const (
	literalPattern   = "ErrWorkspaceBusy"
	innerPattern     = "[A-Z]+_SUSPEND"
	noLiteralPattern = "[0-9]{3}[a-f]{4}[0-9]{3}"
)

// data is the generated data set.
type data struct {
	dir   string
	tree  string // workspace root for search and list: a git repository of the source tree
	files string // workspace root for the read rows
	big   string // files/big.txt
	small string // files/small.txt
	hello string // a Go hello-world built with the same toolchain
}

type marker struct {
	Version int `json:"version"`
	Files   int `json:"files"`
	BigMiB  int `json:"bigMiB"`
}

const markerName = ".aw-bench-data.json"

// prepareData reuses dir when it holds data of the same shape, else fills
// it (dir must then be missing or empty, or hold older bench data).
func prepareData(dir string, files, bigMiB int) (*data, error) {
	d := &data{dir: dir, tree: filepath.Join(dir, "tree"), files: filepath.Join(dir, "files"),
		hello: filepath.Join(dir, "hello", "hello")}
	d.big = filepath.Join(d.files, "big.txt")
	d.small = filepath.Join(d.files, "small.txt")
	want := marker{Version: dataVersion, Files: files, BigMiB: bigMiB}

	var have marker
	raw, err := os.ReadFile(filepath.Join(dir, markerName))
	switch {
	case err == nil && json.Unmarshal(raw, &have) == nil && have == want:
		logf("reusing data in %s", dir)
	case err == nil:
		logf("data in %s has another shape; regenerating", dir)
		for _, sub := range []string{"tree", "files", "hello"} {
			if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
				return nil, err
			}
		}
		if err := generate(d, files, bigMiB); err != nil {
			return nil, err
		}
	default:
		entries, _ := os.ReadDir(dir)
		if len(entries) > 0 {
			return nil, fmt.Errorf("%s is not empty and holds no %s: choose an empty or new directory", dir, markerName)
		}
		if err := generate(d, files, bigMiB); err != nil {
			return nil, err
		}
	}
	raw, _ = json.Marshal(want)
	if err := os.WriteFile(filepath.Join(dir, markerName), raw, 0o644); err != nil {
		return nil, err
	}
	// Always rebuilt: it must come from the toolchain that builds aw.
	if err := buildHello(filepath.Dir(d.hello)); err != nil {
		return nil, fmt.Errorf("building the hello-world: %w", err)
	}
	return d, nil
}

func generate(d *data, files, bigMiB int) error {
	logf("generating %d source files + ignored node_modules in %s", files, d.tree)
	if err := genTree(d.tree, files); err != nil {
		return err
	}
	logf("committing the tree to git (for the git grep peer)")
	if err := gitInit(d.tree); err != nil {
		return err
	}
	logf("writing %d MiB text file and a 64 KiB file in %s", bigMiB, d.files)
	if err := os.MkdirAll(d.files, 0o755); err != nil {
		return err
	}
	if err := genBig(d.big, int64(bigMiB)<<20); err != nil {
		return err
	}
	if err := genSmall(d.small, 64<<10); err != nil {
		return err
	}
	// Read windows are compared whole: lift the inline bound so a 2,000-line
	// window is not cut to maxToolResultChars.
	return writeConfig(d.files, `{
  // scripts/bench: a 2,000-line window must fit inline to be compared with sed.
  "maxToolResultChars": 4000000
}
`)
}

func writeConfig(root, text string) error {
	if err := os.MkdirAll(filepath.Join(root, ".agentic"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(text), 0o644)
}

// genTree writes a source tree of n files, five levels deep
// (src/modA/pkgB/partC/fileD.go), a few deeper directories that a
// five-level listing must cut, ignored files (node_modules, *.log) full of
// the patterns, a .gitignore, a go.mod and the workspace config.
func genTree(root string, n int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	const perLeaf = 50
	leaves := (n + perLeaf - 1) / perLeaf
	written := 0
	for leaf := 0; leaf < leaves; leaf++ {
		dir := filepath.Join(root, "src", fmt.Sprintf("mod%02d", leaf/100), fmt.Sprintf("pkg%02d", leaf/10%10), fmt.Sprintf("part%02d", leaf%10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for i := 0; i < perLeaf && written < n; i++ {
			name := filepath.Join(dir, fmt.Sprintf("file%02d.go", i))
			if err := os.WriteFile(name, sourceFile(rng, written), 0o644); err != nil {
				return err
			}
			written++
		}
	}
	// Deeper than five levels: a listing must stop at depth 5.
	for m := 0; m < 20; m++ {
		dir := filepath.Join(root, "deep", fmt.Sprintf("d%02d", m), "a", "b", "c", "d", "e")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "leaf.txt"), sourceFile(rng, m), 0o644); err != nil {
			return err
		}
	}
	// Ignored by .gitignore, and dense with matches: a search that does not
	// honour .gitignore returns far more than the peers.
	for p := 0; p < 100; p++ {
		dir := filepath.Join(root, "node_modules", fmt.Sprintf("pkg%03d", p), "lib")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for i := 0; i < 100; i++ {
			body := fmt.Sprintf("module.exports = %q; // PM_SUSPEND 123abcd456\n", literalPattern)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.js", i)), []byte(strings.Repeat(body, 5)), 0o644); err != nil {
				return err
			}
		}
	}
	if err := os.WriteFile(filepath.Join(root, "build.log"), []byte(strings.Repeat(literalPattern+" SYS_SUSPEND 999abcd999\n", 1000)), 0o644); err != nil {
		return err
	}
	files := map[string]string{
		".gitignore": "node_modules/\n*.log\n.agentic/\n",
		"go.mod":     "module example.com/bench\n\ngo 1.22\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	// Listings are compared with `find` pruning the same three names; every
	// entry must come back, so lift maxEntries far above the tree's size.
	return writeConfig(root, `{
  // scripts/bench: list the whole tree five levels deep, hiding what find prunes.
  "list": {"maxEntries": 10000000, "maxDepth": 5, "ignore": ["node_modules", ".git", ".agentic"]}
}
`)
}

var words = strings.Fields(`alpha beta gamma delta workspace jail policy envelope artifact
transaction approval plan journal commit rollback window buffer reader writer stream
index cursor budget limit tier scope root store lock record ticket queue worker`)

// sourceFile returns a small Go-like file. About 1 file in 25 has the
// literal, 1 in 20 an UPPER_SUSPEND identifier, 1 in 25 a no-literal token;
// all the other text is lower-case words, so the patterns match nowhere else.
func sourceFile(rng *rand.Rand, i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "package p%d\n\n", i%1000)
	lines := 20 + rng.IntN(40)
	for l := 0; l < lines; l++ {
		w1, w2, w3 := words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))]
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "// %s %s the %s before it returns.\n", w1, w2, w3)
		case 1:
			fmt.Fprintf(&b, "func %s%s%d(n int) int { return n + %d }\n", w1, strings.ToUpper(w2[:1])+w2[1:], l, rng.IntN(1000))
		case 2:
			fmt.Fprintf(&b, "var %s%d = %q\n", w1, l, w2+" "+w3)
		case 3:
			fmt.Fprintf(&b, "\tif %s == nil { return %s }\n", w1, w2)
		default:
			fmt.Fprintf(&b, "\t%s.%s(%s, %d)\n", w1, w2, w3, rng.IntN(100))
		}
		if l == 3 && rng.IntN(25) == 0 {
			fmt.Fprintf(&b, "\treturn nil, %s // %s\n", literalPattern, w1)
		}
		if l == 5 && rng.IntN(20) == 0 {
			fmt.Fprintf(&b, "\tstate := %s_SUSPEND\n", []string{"PM", "SYS", "VM", "IO"}[rng.IntN(4)])
		}
		if l == 7 && rng.IntN(25) == 0 {
			fmt.Fprintf(&b, "\tid := %q\n", fmt.Sprintf("%03d%s%03d", rng.IntN(1000), "abcd", rng.IntN(1000)))
		}
	}
	return []byte(b.String())
}

// gitQuiet keeps git from packing in the background after a commit (its
// automatic gc detaches, and a later explicit gc would find it running).
var gitQuiet = []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.autoDetach", "GIT_CONFIG_VALUE_0=false"}

func gitInit(dir string) error {
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=aw bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "bench data"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append(gitQuiet, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// genBig writes size bytes of text lines (about 90 bytes each) quickly: a
// block of lines is built once and rewritten with its block number.
func genBig(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	for block := 0; written < size; block++ {
		for l := 0; l < 4096 && written < size; l++ {
			line := fmt.Sprintf("%08d:%04d the %s %s wrote the %s of the %s again\n", block, l,
				words[(block+l)%len(words)], words[(l*7)%len(words)], words[(l*13)%len(words)], words[(block*3+l)%len(words)])
			if rem := size - written; int64(len(line)) > rem {
				line = line[:rem-1] + "\n"
			}
			n, err := w.WriteString(line)
			if err != nil {
				f.Close()
				return err
			}
			written += int64(n)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func genSmall(path string, size int) error {
	var b strings.Builder
	for l := 1; b.Len() < size; l++ {
		line := fmt.Sprintf("line %d: the %s %s of the %s\n", l, words[l%len(words)], words[(l*5)%len(words)], words[(l*11)%len(words)])
		if b.Len()+len(line) > size {
			line = line[:size-b.Len()-1] + "\n"
		}
		b.WriteString(line)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func buildHello(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n",
	}
	for name, text := range src {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return goBuild(dir, filepath.Join(dir, "hello"), ".")
}
