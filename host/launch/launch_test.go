package launch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want Launch
	}{
		{"no arguments is a person", nil, Launch{Kind: Person, ParentWindow: -1}},
		{"chrome origin", []string{OurOrigin},
			Launch{Kind: Browser, Origin: OurOrigin, ExtensionID: OurExtensionID, ParentWindow: -1}},
		{"chrome on windows with parent window", []string{OurOrigin, "--parent-window=0"},
			Launch{Kind: Browser, Origin: OurOrigin, ExtensionID: OurExtensionID, ParentWindow: 0}},
		{"parent window first", []string{"--parent-window=1234", "chrome-extension://abc/"},
			Launch{Kind: Browser, Origin: "chrome-extension://abc/", ExtensionID: "abc", ParentWindow: 1234}},
		{"firefox manifest and add-on id", []string{"/home/u/.mozilla/native-messaging-hosts/com.gnosis.host.json", "gnosis@example.org"},
			Launch{Kind: Browser, Origin: "moz-extension://gnosis@example.org/", ExtensionID: "gnosis@example.org",
				ManifestPath: "/home/u/.mozilla/native-messaging-hosts/com.gnosis.host.json", ParentWindow: -1}},
		{"firefox uuid add-on id", []string{`C:\x\host.JSON`, "{8d3c-11}"},
			Launch{Kind: Browser, Origin: "moz-extension://{8d3c-11}/", ExtensionID: "{8d3c-11}", ManifestPath: `C:\x\host.JSON`, ParentWindow: -1}},
		{"subcommand", []string{"call", "health"}, Launch{Kind: Command, Args: []string{"call", "health"}, ParentWindow: -1}},
		{"malformed origin is a command", []string{"chrome-extension://"},
			Launch{Kind: Command, Args: []string{"chrome-extension://"}, ParentWindow: -1}},
		{"json file without add-on id is a command", []string{"x.json", "plain"},
			Launch{Kind: Command, Args: []string{"x.json", "plain"}, ParentWindow: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Parse(tt.args)); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestTrusted(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		extra []string
		want  bool
	}{
		{"our extension", []string{OurOrigin}, nil, true},
		{"another chrome extension", []string{"chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/"}, nil, false},
		{"another extension listed in config", []string{"chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/"},
			[]string{"aaaabbbbccccddddeeeeffffgggghhhh"}, true},
		{"our firefox add-on", []string{"/h/.mozilla/native-messaging-hosts/com.gnosis.host.json", OurAddonID}, nil, true},
		{"our firefox add-on on windows", []string{`C:\Users\u\AppData\Local\Gnosis\com.gnosis.host.firefox.json`, OurAddonID}, nil, true},
		{"our add-on id posing as a chrome origin", []string{"chrome-extension://" + OurAddonID + "/"}, nil, false},
		{"our chrome id posing as a firefox add-on", []string{"m.json", OurExtensionID + "@x"}, nil, false},
		{"firefox add-on not listed", []string{"m.json", "gnosis@example.org"}, nil, false},
		{"firefox add-on listed", []string{"m.json", "gnosis@example.org"}, []string{"gnosis@example.org"}, true},
		{"a person is never a trusted caller", nil, []string{""}, false},
		{"a command is never a trusted caller", []string{"call"}, []string{"call"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse(tt.args).Trusted(tt.extra); got != tt.want {
				t.Errorf("Trusted = %v, want %v", got, tt.want)
			}
		})
	}
}
