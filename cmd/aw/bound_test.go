package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/dispatch"
)

// envelopeOverhead is what an envelope may carry beyond maxToolResultChars:
// the fixed fields, ids, facts and short summaries around the one bounded
// inline text. An envelope over maxToolResultChars+envelopeOverhead echoes
// input it should have summarized.
const envelopeOverhead = 8000

// boundLimit is the workspace's maxToolResultChars in these tests.
const boundLimit = 20000

// checkBound fails when the envelope is larger than its bound.
func checkBound(t *testing.T, what string, r Result) {
	t.Helper()
	if n := len(r.Stdout); n > boundLimit+envelopeOverhead {
		t.Errorf("%s: envelope is %d bytes, over the bound %d+%d: %.600s", what, n, boundLimit, envelopeOverhead, r.Stdout)
	}
}

// TestEnvelopeBoundOversizedEdits drives edit preview, apply, show, list,
// commit and rollback with a 1 MB create, a huge search and replacement,
// in Auto and in Manual mode: no envelope echoes the content.
func TestEnvelopeBoundOversizedEdits(t *testing.T) {
	big := strings.Repeat("line of content\n", 1<<16) // 1 MiB
	for _, mode := range []string{"0", "2"} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
		os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": `+mode+`, "maxToolResultChars": 20000}`), 0o644)
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte(big), 0o644)
		ops, _ := json.Marshal(map[string]any{"operations": []map[string]any{
			{"type": "create", "path": "new.txt", "content": big},
			{"type": "replace", "path": "a.txt", "search": big, "replacement": big + "more\n"},
		}})
		opsFile := filepath.Join(t.TempDir(), "ops.json")
		os.WriteFile(opsFile, ops, 0o644)

		pre := runAW(t, dir, nil, "edit", "preview", "--input", opsFile)
		checkBound(t, "preview mode "+mode, pre)
		tx, _ := pre.field(t, ".data.transactionId").(string)
		if tx == "" {
			t.Fatalf("preview failed: %.800s", pre.Stdout)
		}
		if got := pre.field(t, ".data.operations.0.bytes"); got != float64(len(big)) {
			t.Errorf("the create's summary reports %v bytes, want %d", got, len(big))
		}
		if got := pre.field(t, ".data.operations.0.lines"); got != float64(1<<16) {
			t.Errorf("the create's summary reports %v lines, want %d", got, 1<<16)
		}
		if sum, _ := pre.field(t, ".data.operations.1.searchSha256").(string); len(sum) != 64 {
			t.Errorf("the replace's summary has no search hash: %v", sum)
		}
		for _, args := range [][]string{
			{"edit", "show", tx},
			{"edit", "list"},
			{"edit", "apply", "--input", opsFile},
			{"edit", "commit", tx},
			{"inspect", "changes"},
			{"approval", "list"},
		} {
			checkBound(t, strings.Join(args, " ")+" mode "+mode, runAW(t, dir, nil, args...))
		}
		if mode == "2" {
			checkBound(t, "rollback", runAW(t, dir, nil, "edit", "rollback", tx))
		}
	}
}

// TestEnvelopeBoundEveryAction sends every action of the dispatch table a
// request whose every string is oversized (titles, notes, searches, paths'
// neighbours): whether the action refuses or runs, its envelope stays
// within maxToolResultChars plus the fixed overhead.
func TestEnvelopeBoundEveryAction(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 0, "maxToolResultChars": 20000}`), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	// 300,000 characters is over every field's limit (refusals must not
	// echo it); 1,900 in lists of 40 is under the limits of plans and
	// boards, so those actions run and must summarize what they stored.
	for _, fill := range []struct {
		text string
		list int
	}{{strings.Repeat("x", 300000), 1}, {strings.Repeat("y", 1900), 40}} {
		for _, a := range dispatch.Table() {
			if a.Human || a.Tool.Name == "" {
				continue
			}
			req := oversized(a.RequestType(), fill.text, fill.list)
			req["action"] = a.Name
			raw, _ := json.Marshal(req)
			r := runAW(t, dir, raw, "call", a.Tool.Name, "-")
			checkBound(t, fmt.Sprintf("%s (strings of %d)", a.Operation(), len(fill.text)), r)
		}
	}
	// A note near its size limit, written and read back.
	note := strings.Repeat("a note line\n", 15000)
	checkBound(t, "notes write", runAW(t, dir, []byte(note), "notes", "write", "big"))
	read := runAW(t, dir, nil, "notes", "read", "big")
	checkBound(t, "notes read", read)
	next, _ := read.field(t, ".data.nextStart").(float64)
	if read.field(t, ".data.truncated") != true || next < 2 || !strings.Contains(read.field(t, ".summary").(string), fmt.Sprintf("--start %d", int(next))) {
		t.Errorf("a note over the bound must say it is cut and where to read on: %.400s", read.Stdout)
	}
}

// oversized fills a request's fields: strings huge, string lists with one
// huge string, numbers small and positive, nested objects recursively.
func oversized(typ reflect.Type, huge string, list int) map[string]any {
	out := map[string]any{}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		if v, ok := oversizedValue(f.Type, huge, list, 0); ok {
			out[name] = v
		}
	}
	return out
}

func oversizedValue(t reflect.Type, huge string, list, depth int) (any, bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return huge, true
	case reflect.Int, reflect.Int64, reflect.Int32:
		return 1, true
	case reflect.Slice:
		if v, ok := oversizedValue(t.Elem(), huge, list, depth+1); ok && depth < 3 {
			out := make([]any, list)
			for i := range out {
				out[i] = v
			}
			return out, true
		}
	case reflect.Struct:
		if depth < 3 && t.PkgPath() != "time" {
			return oversized(t, huge, list), true
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String {
			return map[string]string{"k": huge}, true
		}
	}
	return nil, false
}

// TestEditListMatchesChanges: an `aw edit list` entry has the shape of an
// `aw inspect changes` transaction, capped lists and flags included.
func TestEditListMatchesChanges(t *testing.T) {
	dir := t.TempDir()
	var ops []map[string]any
	for i := 0; i < 25; i++ {
		ops = append(ops, map[string]any{"type": "create", "path": fmt.Sprintf("f%02d.txt", i), "content": "x\n"})
	}
	ops = append(ops, map[string]any{"type": "mkdir", "path": "d"})
	raw, _ := json.Marshal(map[string]any{"operations": ops})
	pre := runAW(t, dir, raw, "edit", "preview", "--input", "-")
	if pre.field(t, ".data.fileCount") != 25.0 || pre.field(t, ".data.filesTruncated") != true || len(pre.field(t, ".data.files").([]any)) != 20 ||
		pre.field(t, ".data.operationCount") != 26.0 || pre.field(t, ".data.operationsTruncated") != true {
		t.Errorf("the preview must cap its lists at 20 with counts: %.600s", pre.Stdout)
	}
	list := runAW(t, dir, nil, "edit", "list")
	changes := runAW(t, dir, nil, "inspect", "changes")
	entry := list.field(t, ".data.transactions.0").(map[string]any)
	want := changes.field(t, ".data.transactions.0").(map[string]any)
	for k, v := range want {
		if g, _ := json.Marshal(entry[k]); string(g) != string(must(json.Marshal(v))) {
			t.Errorf("edit list %s = %s, inspect changes has %s", k, g, must(json.Marshal(v)))
		}
	}
	if entry["fileCount"] != 25.0 || entry["filesTruncated"] != true || len(entry["files"].([]any)) != 20 || entry["directoryCount"] != 1.0 || entry["directories"].([]any)[0] != "d" {
		t.Errorf("edit list entry: %v", entry)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
