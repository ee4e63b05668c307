package github

import (
	"net/http"
	"testing"
)

func TestParseRemote(t *testing.T) {
	for _, tc := range []struct {
		remote      string
		owner, name string
		ok          bool
	}{
		{"https://github.com/octo/hello.git", "octo", "hello", true},
		{"https://github.com/octo/hello", "octo", "hello", true},
		{"https://github.com/octo/hello/", "octo", "hello", true},
		{"https://user:secret@github.com/octo/hello.git", "octo", "hello", true},
		{"http://ghe.example.com/octo/hello.git", "octo", "hello", true},
		{"git@github.com:octo/hello.git", "octo", "hello", true},
		{"git@github.com:octo/hello", "octo", "hello", true},
		{"github.com:octo/hello.git", "octo", "hello", true},
		{"ssh://git@github.com/octo/hello.git", "octo", "hello", true},
		{"ssh://git@ghe.example.com:2222/octo/hello.git", "octo", "hello", true},
		{"git+ssh://git@github.com/octo/my.repo.git", "octo", "my.repo", true},
		{"git://github.com/octo/hello", "octo", "hello", true},
		{"https://github.com/hello", "", "", false},
		{"/srv/git/hello.git", "", "", false},
		{"../hello", "", "", false},
		{"https://github.com/octo/..", "", "", false},
		{"", "", "", false},
	} {
		owner, name, ok := parseRemote(tc.remote)
		if ok != tc.ok || owner != tc.owner || name != tc.name {
			t.Errorf("parseRemote(%q) = %q, %q, %v; want %q, %q, %v", tc.remote, owner, name, ok, tc.owner, tc.name, tc.ok)
		}
	}
}

func TestNextLink(t *testing.T) {
	for _, tc := range []struct{ link, want string }{
		{`<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"`, "https://api.github.com/repositories/1/issues?page=2"},
		{`<https://a/x?page=1>; rel="prev", <https://a/x?page=3>; rel="next"`, "https://a/x?page=3"},
		{`<https://a/x?page=1>; rel="first", <https://a/x?page=1>; rel="prev"`, ""},
		{`<https://a/x?page=4>; rel="next last"`, "https://a/x?page=4"},
		{``, ""},
	} {
		h := http.Header{}
		if tc.link != "" {
			h.Set("Link", tc.link)
		}
		if got := nextLink(h); got != tc.want {
			t.Errorf("nextLink(%q) = %q, want %q", tc.link, got, tc.want)
		}
	}
}

func TestDiffFiles(t *testing.T) {
	diff := "diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n-x\n+y\n+++z\n ctx\n" +
		"diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n--two\n" +
		"diff --git a/from b/to\nsimilarity index 100%\nrename from from\nrename to to\n"
	got := diffFiles(diff)
	want := []DiffFile{{"a.go", 2, 1}, {"old.txt", 0, 2}, {"to", 0, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("file %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
