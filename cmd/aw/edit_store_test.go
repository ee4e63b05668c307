package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storeWorkspace makes a workspace whose .agentic/config.json is cfg.
func storeWorkspace(t *testing.T, cfg string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// requestFile writes a request object to a temp file for --input.
func requestFile(t *testing.T, req any) string {
	t.Helper()
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// duSize is the bytes of every regular file under dir.
func duSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// textOf is n bytes of numbered text lines.
func textOf(n int, tag string) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s line %07d of a large file, long enough to matter\n", tag, i)
	}
	return b.Bytes()[:n]
}

// TestPreviewHundredCopiesStoredOnce: a preview at the read tier that
// copies one 4 MiB file to 100 paths stores the content once and diffs it
// once (about 8 MiB under .agentic/, not 1.2 GB); committing it writes the
// 100 files from that one blob, and rolling back removes them.
func TestPreviewHundredCopiesStoredOnce(t *testing.T) {
	dir := storeWorkspace(t, `{"permissionMode": 2, "allowDestructiveEdits": true}`)
	const size = 4 << 20
	big := textOf(size, "big")
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	var ops []map[string]any
	for i := 0; i < 100; i++ {
		ops = append(ops, map[string]any{"type": "copy", "from": "big.txt", "to": fmt.Sprintf("copies/c%03d.txt", i)})
	}
	input := requestFile(t, map[string]any{"operations": ops})
	r := runAW(t, dir, nil, "--tier", "read", "edit", "preview", "--input", input)
	if r.Code != 0 {
		t.Fatalf("preview: exit %d %s", r.Code, r.Stdout)
	}
	tx := r.field(t, ".data.transactionId").(string)
	// The envelope lists the first 20 files; fileCount counts them all.
	if n := r.field(t, ".data.fileCount"); n != 100.0 || r.field(t, ".data.filesTruncated") != true {
		t.Fatalf("%v files in the preview, want 100", n)
	}
	txDir := filepath.Join(dir, ".agentic", "transactions", tx)
	blobs, err := os.ReadDir(filepath.Join(txDir, "blobs"))
	if err != nil || len(blobs) != 1 {
		t.Fatalf("blobs/: %v %v, want the one content", blobs, err)
	}
	if got := duSize(t, filepath.Join(dir, ".agentic")); got > 3*size {
		t.Fatalf(".agentic/ holds %d bytes after a 100-copy preview of a %d-byte file, want under %d", got, size, 3*size)
	}
	diff, _ := os.ReadFile(filepath.Join(txDir, "changes.diff"))
	if n := strings.Count(string(diff), "the same change as b/copies/c000.txt"); n != 99 {
		t.Fatalf("%d repeated diffs written as references, want 99", n)
	}
	if r.field(t, ".data.files.19.additions") != r.field(t, ".data.files.0.additions") {
		t.Fatalf("a repeated change must report the same line counts: %v vs %v", r.field(t, ".data.files.19.additions"), r.field(t, ".data.files.0.additions"))
	}

	wantOK(t, runAW(t, dir, nil, "edit", "commit", tx), 0)
	for i := 0; i < 100; i += 33 {
		got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("copies/c%03d.txt", i)))
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("copy %d after commit: %d bytes, %v", i, len(got), err)
		}
	}
	wantOK(t, runAW(t, dir, nil, "edit", "rollback", tx), 0)
	if _, err := os.Stat(filepath.Join(dir, "copies", "c000.txt")); err == nil {
		t.Fatalf("rollback left the copies")
	}
}

// TestTransactionCapRefused: over edit.maxTransactionBytes a preview (and
// an apply) is INVALID_INPUT naming the size and the setting, and nothing
// is written under .agentic/ — not the transaction, not its idempotency
// key. Distinct contents add up; the same content many times does not.
func TestTransactionCapRefused(t *testing.T) {
	dir := storeWorkspace(t, `{"permissionMode": 2, "edit": {"maxTransactionBytes": 1048576}}`)
	wantOK(t, runAW(t, dir, nil, "edit", "list"), 0) // the hourly pruning stamps the store
	before := treeDigest(t, dir)
	one := string(textOf(2<<20, "one"))
	var distinct, same []map[string]any
	small := string(textOf(20<<10, "same"))
	for i := 0; i < 100; i++ {
		distinct = append(distinct, map[string]any{"type": "create", "path": fmt.Sprintf("d/%03d.txt", i), "content": fmt.Sprintf("%03d ", i) + small})
	}
	for i := 0; i < 20; i++ {
		same = append(same, map[string]any{"type": "create", "path": fmt.Sprintf("s/%03d.txt", i), "content": small})
	}
	for _, c := range []struct {
		name string
		args []string
		req  map[string]any
	}{
		{"one large create", []string{"edit", "preview"}, map[string]any{"operations": []map[string]any{{"type": "create", "path": "a.txt", "content": one}}}},
		{"at the read tier", []string{"--tier", "read", "edit", "preview"}, map[string]any{"operations": []map[string]any{{"type": "create", "path": "a.txt", "content": one}}}},
		{"apply", []string{"edit", "apply"}, map[string]any{"operations": []map[string]any{{"type": "create", "path": "a.txt", "content": one}}}},
		{"with an idempotency key", []string{"edit", "apply"}, map[string]any{"idempotency_key": "k1", "operations": []map[string]any{{"type": "create", "path": "a.txt", "content": one}}}},
		{"100 distinct small files", []string{"edit", "preview"}, map[string]any{"operations": distinct}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runAW(t, dir, nil, append(c.args, "--input", requestFile(t, c.req))...)
			msg := wantErr(t, r, "INVALID_INPUT", 2, "edit.maxTransactionBytes", "1048576 bytes", "nothing was written")
			if r.field(t, ".error.details.setting") != "edit.maxTransactionBytes" || r.field(t, ".error.details.limit") != 1048576.0 {
				t.Fatalf("details: %s", r.Stdout)
			}
			if b, _ := r.field(t, ".error.details.bytes").(float64); b <= 1048576 {
				t.Fatalf("details.bytes %v is not over the limit: %s", b, msg)
			}
			unchangedTree(t, before, treeDigest(t, dir))
		})
	}
	// The same 20 KiB content twenty times fits: it is stored once.
	r := runAW(t, dir, nil, "edit", "preview", "--input", requestFile(t, map[string]any{"operations": same}))
	wantOK(t, r, 0)
	if blobs, _ := os.ReadDir(filepath.Join(dir, ".agentic", "transactions", r.field(t, ".data.transactionId").(string), "blobs")); len(blobs) != 1 {
		t.Fatalf("%d blobs for one content created 20 times", len(blobs))
	}

	// The setting is checked when settings load.
	bad := storeWorkspace(t, `{"edit": {"maxTransactionBytes": 10}}`)
	wantErr(t, runAW(t, bad, nil, "edit", "list"), "INVALID_INPUT", 2, "edit.maxTransactionBytes", "at least 65536")
}

// TestLegacyTransactionLayout: transactions recorded before content
// addressing keep before/<n> and after/<n>; they still commit and roll
// back.
func TestLegacyTransactionLayout(t *testing.T) {
	dir := storeWorkspace(t, `{"permissionMode": 2, "allowDestructiveEdits": true}`)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gone.txt"), []byte("old gone\n"), 0o644)
	ops := []map[string]any{
		{"type": "replace", "path": "a.txt", "search": "old", "replacement": "new"},
		{"type": "delete", "path": "gone.txt"},
		{"type": "create", "path": "b.txt", "content": "b\n"},
	}
	r := runAW(t, dir, nil, "edit", "preview", "--input", requestFile(t, map[string]any{"operations": ops}))
	wantOK(t, r, 0)
	tx := r.field(t, ".data.transactionId").(string)
	txDir := filepath.Join(dir, ".agentic", "transactions", tx)
	// Rewrite the directory into the old layout.
	var rec struct {
		Files []struct{ BeforeSha256, AfterSha256 string }
	}
	raw, _ := os.ReadFile(filepath.Join(txDir, "transaction.json"))
	if err := json.Unmarshal(raw, &rec); err != nil || len(rec.Files) != 3 {
		t.Fatalf("transaction.json: %v %s", err, raw)
	}
	for n, f := range rec.Files {
		for side, sum := range map[string]string{"before": f.BeforeSha256, "after": f.AfterSha256} {
			if sum == "" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(txDir, "blobs", sum))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(txDir, side), 0o755)
			os.WriteFile(filepath.Join(txDir, side, fmt.Sprint(n)), b, 0o600)
		}
	}
	if err := os.RemoveAll(filepath.Join(txDir, "blobs")); err != nil {
		t.Fatal(err)
	}
	wantOK(t, runAW(t, dir, nil, "edit", "commit", tx), 0)
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "new a\n" {
		t.Fatalf("a.txt after a legacy commit: %q", b)
	}
	wantOK(t, runAW(t, dir, nil, "edit", "rollback", tx), 0)
	for name, want := range map[string]string{"a.txt": "old a\n", "gone.txt": "old gone\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Fatalf("%s after a legacy rollback: %q", name, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatalf("b.txt survived the rollback")
	}
}
