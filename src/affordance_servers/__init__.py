"""affordance_servers"""
