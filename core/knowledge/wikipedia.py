"""placeholder"""
def network_available(): return False
