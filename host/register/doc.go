// Package register puts gnosis-host where browsers look for native-messaging
// hosts, takes it away again, and explains what is wrong when a browser cannot
// find it.
//
// One table (Browsers) says, for every supported browser and channel, where it
// looks on Linux, macOS and Windows. Install, Uninstall and Doctor all read
// that table, so a fix to a path is a fix everywhere. The file system and
// environment are passed in as an Env, which lets the Linux tests compute the
// Windows and macOS places too; the Windows registry is reached through the
// Registry interface, implemented with golang.org/x/sys/windows/registry on
// Windows only.
package register
