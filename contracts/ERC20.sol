// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

/// @title ERC20
/// @notice The ERC-20 core shared by the launch token and the devnet quote tokens: balances, allowances,
/// transfers, and the OpenZeppelin-style custom errors the gateway decodes. Supply, decimals and minting
/// are the concrete token's.
abstract contract ERC20 {
    string public name;
    string public symbol;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);
    error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error ERC20InvalidReceiver(address receiver);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert ERC20InsufficientAllowance(msg.sender, allowed, amount);
            allowance[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    /// New tokens for `to`; the concrete token accounts for its supply.
    function _credit(address to, uint256 amount) internal {
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
        _afterTransfer(address(0), to);
    }

    /// Called after every balance change (a tax token reports balances to its dividend distributor).
    function _afterTransfer(address from, address to) internal virtual {}

    function _transfer(address from, address to, uint256 amount) private {
        if (to == address(0)) revert ERC20InvalidReceiver(to);
        uint256 balance = balanceOf[from];
        if (balance < amount) revert ERC20InsufficientBalance(from, balance, amount);
        unchecked {
            balanceOf[from] = balance - amount;
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
        _afterTransfer(from, to);
    }
}
