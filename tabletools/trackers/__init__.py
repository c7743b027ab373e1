"""What the table tools' tracker kinds need beside their engines: each tool's initial state from
the options a room is opened with. The kinds themselves are in :mod:`tabletools.kinds`."""
