"""The acrag graph: state, configuration, routers and assembly."""
