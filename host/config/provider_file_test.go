package config

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestSetAndRemoveProviderKeepTheRestOfTheFile(t *testing.T) {
	files := Provider{Name: "files", Command: "/usr/bin/node", Args: []string{"/srv/fs.js", "stdio"}, Env: map[string]string{"ROOT": "/srv"},
		Prefix: "fs", Timeout: Duration(30 * time.Second), StartTimeout: Duration(time.Minute)}
	tests := []struct {
		name    string
		before  string
		change  func(path string) error
		want    string
		wantErr string
	}{
		{
			name:   "no file: a providers list with the entry",
			change: func(path string) error { return SetProvider(path, files) },
			want: `{"providers":[{"name":"files","command":"/usr/bin/node","args":["/srv/fs.js","stdio"],"env":{"ROOT":"/srv"},"prefix":"fs",` +
				`"timeout":"30s","startTimeout":"1m0s"}]}`,
		},
		{
			name:   "an entry of that name is replaced in place, its unknown fields and every other section kept",
			before: `{"log":{"level":"debug"},"future":1,"providers":[{"name":"munim","command":"/m"},{"name":"files","command":"/old","args":["x"],"note":"mine","startTimeout":"5s"},{"name":"z","command":"/z"}]}`,
			change: func(path string) error {
				return SetProvider(path, Provider{Name: "files", Command: "/usr/bin/node", Prefix: "files", Timeout: Duration(2 * time.Minute)})
			},
			want: `{"log":{"level":"debug"},"future":1,"providers":[{"name":"munim","command":"/m"},` +
				`{"name":"files","command":"/usr/bin/node","prefix":"files","timeout":"2m0s","note":"mine"},{"name":"z","command":"/z"}]}`,
		},
		{
			name:   "an unnamed entry is found by the name the host gives it",
			before: `{"providers":[{"command":"/a"},{"prefix":"fs","command":"/b"}]}`,
			change: func(path string) error { return SetProvider(path, Provider{Name: "fs", Command: "/c", Prefix: "fs"}) },
			want:   `{"providers":[{"command":"/a"},{"name":"fs","prefix":"fs","command":"/c"}]}`,
		},
		{
			name:   "remove takes out only that entry",
			before: `{"providers":[{"command":"/a"},{"name":"files","command":"/b"}],"policy":{"default":[]}}`,
			change: func(path string) error { return RemoveProvider(path, "provider1") },
			want:   `{"providers":[{"name":"files","command":"/b"}],"policy":{"default":[]}}`,
		},
		{
			name:    "removing what is not there fails and changes nothing",
			before:  `{"providers":[{"name":"files","command":"/b"}]}`,
			change:  func(path string) error { return RemoveProvider(path, "munim") },
			wantErr: ErrNoProvider.Error(),
		},
		{
			name: "install: a new file gets the entry and a policy that grants nothing",
			change: func(path string) error {
				created, err := InstallProvider(path, Provider{Name: "munim", Command: "/opt/munim", Prefix: "computer"})
				if err == nil && !created {
					err = errors.New("created = false for a new file")
				}
				return err
			},
			want: `{"providers":[{"name":"munim","command":"/opt/munim","prefix":"computer"}],"policy":{"default":[],"origins":{}}}`,
		},
		{
			name:   "install: an existing file keeps its policy and other entries",
			before: `{"providers":[{"name":"munim","command":"/old","env":{"K":"v"},"note":"mine"},{"name":"z","command":"/z"}],"policy":{"default":["computer.*"]}}`,
			change: func(path string) error {
				created, err := InstallProvider(path, Provider{Name: "munim", Command: "/opt/munim", Args: []string{"--stdio"}, Prefix: "computer"})
				if err == nil && created {
					err = errors.New("created = true for a file that was there")
				}
				return err
			},
			want: `{"providers":[{"name":"munim","command":"/opt/munim","args":["--stdio"],"prefix":"computer","note":"mine"},{"name":"z","command":"/z"}],` +
				`"policy":{"default":["computer.*"]}}`,
		},
		{
			name:    "providers that are not a list are left alone",
			before:  `{"providers":{"name":"files"}}`,
			change:  func(path string) error { return SetProvider(path, files) },
			wantErr: `"providers" must be a list`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkEdit(t, tc.before, tc.want, tc.wantErr, tc.change) })
	}
	if !errors.Is(RemoveProvider(filepath.Join(t.TempDir(), "none.json"), "x"), ErrNoProvider) {
		t.Error("removing from a missing file is not ErrNoProvider")
	}
}
